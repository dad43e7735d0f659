// A PostgreSQL crash under load, with slipgate as a real process. Holds and
// releases commit without waiting for the disk and settles of concurrent
// requests share one durable commit (src/store/postgres/holds.ts,
// settle-batch.ts); this proves that what was answered still stands after a
// crash. The test's own server is stopped with `pg_ctl stop -m immediate`
// (in-flight transactions and WAL still in PostgreSQL's buffers lost, crash
// recovery on the next start) while verifications run; then slipgate is
// SIGKILLed, the server started again and the dead process's holds recovered.
// Every request sent ends up in one of three sets:
//   answered success  S: the caller holds a 200 success;
//   answered other    F: any other answer (a 500 "may have been charged"
//                        promises nothing either way);
//   unanswered        U: no answer came (in flight at the kill).
// With V the VerifyTransaction records after recovery:
//   S ⊆ V              no answered success is lost;
//   V ⊆ S ∪ U ∪ F₅₀₀   nothing is charged that was not answered a success,
//                      except what was in flight or answered "outcome unknown";
//   usage = |V|, credits + usage = initial credits, no hold left; doctor clean.
import { afterEach, describe, expect, it } from 'vitest';
import { VERIFY_PATH } from '../../src/http/public-app.js';
import { AccountService } from '../../src/domain/accounts/operations.js';
import type { VerifyTransactionRecord } from '../../src/domain/types.js';
import type { Store } from '../../src/domain/ports/store.js';
import { openStore } from '../../src/store/open.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { spawnSlipgate } from '../helpers/child.js';
import { runDoctor } from '../helpers/doctor.js';
import { startPrivatePostgres } from '../helpers/private-postgres.js';

const CREDITS = 5_000;
/** Answered successes before the server is stopped. */
const STOP_AFTER = 300;
/** Answers after the stop before the load ends (they are errors: the server is down). */
const ANSWERS_WHILE_DOWN = 20;
const WORKERS = 16;

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => {});
  cleanup = [];
});

interface Sent {
  succeeded: Set<string>;
  unanswered: Set<string>;
  /** Answered, but not a success: qrcode -> HTTP status. */
  other: Map<string, number>;
}

async function verifyTransactions(store: Store, accountId: string): Promise<VerifyTransactionRecord[]> {
  const all: VerifyTransactionRecord[] = [];
  let after: string | null = null;
  do {
    const page = await store.listVerifyTransactions({ accountId, limit: 500, after });
    all.push(...page.items);
    after = page.next;
  } while (after);
  return all;
}

describe('PostgreSQL crash (pg_ctl stop -m immediate) under load', () => {
  it('loses no answered success and charges nothing unanswered; the books add up after recovery', { timeout: 180_000 }, async () => {
    const server = await startPrivatePostgres();
    cleanup.push(() => server.dispose());
    const setup = await openStore(server.url);
    await setup.migrate();
    const { account, apiKey } = await new AccountService(setup).createAccount({ name: 'Crash Shop', credits: CREDITS, actor: 'test' });
    await setup.close();

    const child = await spawnSlipgate({
      DATABASE_URL: `${server.url}?pool_max=8&connect_timeout=1000&statement_timeout=2000`,
      SANDBOX_LATENCY_MS: '2',
    });
    cleanup.push(async () => {
      child.proc.kill('SIGKILL');
      await child.exited;
    });

    const sent: Sent = { succeeded: new Set(), unanswered: new Set(), other: new Map() };
    let stopping: Promise<void> | null = null;
    let answeredWhileDown = 0;
    const until = Date.now() + 60_000;
    const worker = async () => {
      while (answeredWhileDown < ANSWERS_WHILE_DOWN && Date.now() < until) {
        const qrcode = sandboxQr();
        const down = stopping !== null;
        try {
          const res = await fetch(child.publicUrl + VERIFY_PATH, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': apiKey.secret },
            body: JSON.stringify({ qrcode }),
          });
          const body = (await res.json()) as { status?: string };
          if (res.status === 200 && body.status === 'success') sent.succeeded.add(qrcode);
          else sent.other.set(qrcode, res.status);
        } catch {
          sent.unanswered.add(qrcode);
        }
        if (down) answeredWhileDown++;
        // Stopped while the other workers' requests are in flight: holds,
        // settles and releases are cut at every stage.
        if (!stopping && sent.succeeded.size >= STOP_AFTER) stopping = server.stopImmediately();
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    expect(stopping, `only ${sent.succeeded.size} successes in 60 s`).not.toBeNull();
    await stopping;
    // Whatever slipgate still held in memory dies with it.
    child.proc.kill('SIGKILL');
    await child.exited;
    await server.start(); // crash recovery replays what reached the WAL

    const store = await openStore(server.url);
    cleanup.push(() => store.close());
    const survived = await verifyTransactions(store, account.id);
    const recorded = new Set(survived.map((v) => v.qrcode));
    console.info(
      `postgres crash: ${sent.succeeded.size} answered successes, ${sent.other.size} other answers, ${sent.unanswered.size} unanswered; ` +
        `${survived.length} verifications after restart`,
    );
    const lost = [...sent.succeeded].filter((q) => !recorded.has(q));
    expect(lost, `${lost.length} of ${sent.succeeded.size} answered successes lost in the crash`).toEqual([]);
    const unexplained = survived
      .filter((v) => !sent.succeeded.has(v.qrcode) && !sent.unanswered.has(v.qrcode) && sent.other.get(v.qrcode) !== 500)
      .map((v) => v.qrcode);
    expect(unexplained, 'charged, yet answered as a failure (or never sent)').toEqual([]);

    // The dead process's holds are recovered as a restarted slipgate does.
    const now = new Date();
    await store.recoverStaleHolds(now, now);
    const after = (await store.getAccount(account.id))!;
    expect(await store.listHolds(account.id)).toEqual([]);
    expect({ usage: after.usage, total: after.credits + after.held + after.usage, held: after.held }).toEqual({ usage: survived.length, total: CREDITS, held: 0 });
    expect(await runDoctor(server.url)).toMatchObject({ code: 0, accounts: 1, discrepancies: [], openHolds: 0 });
  });
});
