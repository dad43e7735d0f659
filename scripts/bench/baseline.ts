// The floor for this stack (bench scenario D): express + got passing each
// slip straight to the bank's verify API over keep-alive sockets, with no
// API key, database, audit or credits. It speaks KBank like slipgate's
// adapter (one token at start-up, then one JSON POST per slip), so the only
// difference to slipgate is what slipgate adds.
//
// Env: BASELINE_UPSTREAM (bank base URL), BASELINE_CLIENT_ID/SECRET, PORT,
// WORKERS (node:cluster processes, to match slipgate's). Logs JSON lines.
import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { got, type Got } from 'got';
import { parseSlipQr } from '../../src/domain/verify/slip-qr.js';
import { KBANK_SUCCESS, KBANK_TOKEN_PATH, KBANK_VERIFY_PATH } from '../../src/upstream/kbank/kbank-protocol.js';
import { bangkokIsoTime } from '../../src/domain/bangkok-time.js';
import { freezeCacheOptions } from '../../src/upstream/shared/bank-http.js';

const log = (fields: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(fields)}\n`);

const workers = Number(process.env.WORKERS ?? '1');
if (cluster.isPrimary && workers > 1) supervise(workers);
else await serve();

async function serve(): Promise<void> {
  const upstream = required('BASELINE_UPSTREAM');
  const client = got.extend({
    agent: { http: new http.Agent({ keepAlive: true }) },
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false,
    timeout: { request: 30_000 },
    // As slipgate's bank client does: the floor uses the stack as well as slipgate does.
    hooks: { beforeRequest: [freezeCacheOptions] },
  });
  const token = await fetchToken(client, upstream);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.post('/api/v1/verify', express.json({ limit: 16_384 }), async (req, res) => {
    const qrcode: unknown = (req.body as { qrcode?: unknown } | undefined)?.qrcode;
    const parsed = parseSlipQr(typeof qrcode === 'string' ? qrcode : '');
    if (!parsed.ok) {
      res.status(400).json({ status: 'error', message: parsed.reason });
      return;
    }
    try {
      const answer = await client.post(upstream + KBANK_VERIFY_PATH, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        json: { rqUID: randomUUID(), rqDt: bangkokIsoTime(), data: { sendingBank: parsed.slip.sendingBank, transRef: parsed.slip.transRef } },
      });
      const body = JSON.parse(answer.body) as { statusCode?: string; statusMessage?: string; data?: unknown };
      if (body.statusCode === KBANK_SUCCESS) res.json({ status: 'success', data: body.data, qrcode });
      else res.json({ status: 'error', message: body.statusMessage ?? 'failed' });
    } catch {
      res.status(502).json({ status: 'error', message: 'bank request failed' });
    }
  });

  const server = app.listen(Number(process.env.PORT ?? '0'), '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    log({ msg: 'baseline listening', publicUrl: `http://127.0.0.1:${port}` });
    if (cluster.isWorker) process.send?.('ready');
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function fetchToken(client: Got, upstream: string): Promise<string> {
  const basic = Buffer.from(`${required('BASELINE_CLIENT_ID')}:${required('BASELINE_CLIENT_SECRET')}`).toString('base64');
  const answer = await client.post(upstream + KBANK_TOKEN_PATH, {
    headers: { authorization: `Basic ${basic}` },
    form: { grant_type: 'client_credentials' },
  });
  const token = (JSON.parse(answer.body) as { access_token?: unknown }).access_token;
  if (answer.statusCode !== 200 || typeof token !== 'string') throw new Error(`bank refused a token (HTTP ${answer.statusCode})`);
  return token;
}

function supervise(count: number): void {
  let ready = 0;
  let live = count;
  for (let i = 0; i < count; i++) {
    cluster.fork().on('message', (m) => {
      if (m === 'ready' && ++ready === count) log({ msg: 'all workers listening', workers: count });
    });
  }
  let stopping = false;
  cluster.on('exit', () => {
    live--;
    if (!stopping) process.exit(1);
    if (live === 0) process.exit(0);
  });
  const stop = () => {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}
