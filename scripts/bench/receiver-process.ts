// The webhook receiver of --webhooks, as its own process (forked by
// webhooks.ts). It used to run in the bench process, on the event loop that
// also drives autocannon: every delivery it read and checked then delayed
// the load generator's own requests, and A+hooks' p99 measured that too. A
// real receiver is another process (usually another machine); this one
// shares only the machine's cores, like the simulated bank.
//
// It checks each signature with the SDK's verifyWebhookSignature, answers
// 200 at once (or holds the answer until told, for W's backlog), and tells
// the parent what it counted, in batches, over the IPC channel.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { SIGNATURE_HEADER, verifyWebhookSignature } from '../../src/client/webhooks.js';

/** Parent to child. */
export type ReceiverCommand = { type: 'secret'; accountId: string; secret: string } | { type: 'release' };

/** Child to parent: `ready` once listening, `secret` once one is kept, then `counts` while anything changes. */
export type ReceiverReport =
  | { type: 'ready'; base: string }
  | { type: 'secret'; accountId: string }
  | {
      type: 'counts';
      delivered: number;
      duplicates: number;
      badSignatures: number;
      parked: number;
      /** Epoch ms (high resolution) of the last delivery counted. */
      lastAtEpochMs: number;
      /** Lags (ms) of the deliveries counted since the last report, in arrival order. */
      newLagsMs: number[];
    };

/** How often counts are reported while they change: the bench's waits poll every 50 ms. */
const REPORT_EVERY_MS = 20;

function main(): void {
  const send = (report: ReceiverReport) => process.send?.(report);
  const secrets = new Map<string, string>();
  const seen = new Set<string>();
  const counts = { delivered: 0, duplicates: 0, badSignatures: 0, lastAtEpochMs: 0 };
  let newLags: number[] = [];
  let changed = false;
  let parked: (() => void)[] | null = process.argv.includes('--held') ? [] : null;

  const answer = (res: ServerResponse, raw: Buffer, signedWell: boolean) => {
    changed = true;
    if (!signedWell) {
      counts.badSignatures++;
      res.writeHead(400).end();
      return;
    }
    // Answered before the bookkeeping, as docs/webhooks.md asks of a receiver.
    res.writeHead(200).end();
    const event = JSON.parse(raw.toString('utf8')) as { id: string; createdAt: string };
    if (seen.has(event.id)) {
      counts.duplicates++;
      return;
    }
    seen.add(event.id);
    counts.delivered++;
    newLags.push(Date.now() - Date.parse(event.createdAt));
    counts.lastAtEpochMs = performance.timeOrigin + performance.now();
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      // Checked on arrival, as a receiver would: a held answer must not run out the signature's time tolerance.
      const secret = secrets.get((req.url ?? '').split('/').pop() ?? '');
      const check = secret === undefined ? { ok: false } : verifyWebhookSignature(raw, req.headers[SIGNATURE_HEADER] as string | undefined, secret);
      if (parked) {
        parked.push(() => answer(res, raw, check.ok));
        changed = true;
      } else answer(res, raw, check.ok);
    });
  });

  process.on('message', (command: ReceiverCommand) => {
    if (command.type === 'secret') {
      secrets.set(command.accountId, command.secret);
      send({ type: 'secret', accountId: command.accountId });
    } else {
      const waiting = parked ?? [];
      parked = null;
      for (const go of waiting) go();
      changed = true;
    }
  });
  // The parent going away ends the receiver too.
  process.on('disconnect', () => process.exit(0));

  setInterval(() => {
    if (!changed) return;
    changed = false;
    send({ type: 'counts', ...counts, parked: parked?.length ?? 0, newLagsMs: newLags });
    newLags = [];
  }, REPORT_EVERY_MS);

  server.listen(0, '127.0.0.1', () => send({ type: 'ready', base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` }));
}

main();
