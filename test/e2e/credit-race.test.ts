// Randomized races near an empty balance (issue #37), against a real server
// over HTTP: every round, a few accounts with 0 to 3 credits each get, all at
// once and in random order, verifications that succeed (hold, then settle)
// or fail at the bank (hold, then release), top-ups repeated under one
// idempotency key and top-ups of their own key (GraphQL). Every verification
// must be answered success, 1023 or its own bank failure (never 503 or 500),
// the requests told "verified" must be exactly the ones recorded and
// charged, and every account's books must reconcile. On the MongoDB-wire
// test server (FerretDB, whose guarded updates are not atomic) the case is
// reported as skipped; it runs against a real MongoDB (MONGODB_URI).
//
// Before the fix of #37, PostgreSQL answered 503 within the first rounds
// (a hold's snapshot taken while a top-up was committing).
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect } from 'vitest';
import { reconcileAccount } from '../../src/domain/accounts/reconcile.js';
import type { BankAdapter, BankAnswer, SlipQuery } from '../../src/domain/ports/upstream.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { concurrencyCase, testEngines } from '../helpers/engines.js';
import { openRawBooks } from '../helpers/raw-books.js';
import { dataOf, startGraphqlApp, type GraphqlTestApp } from '../graphql/helpers.js';

/** CREDIT_RACE_ROUNDS=300 for a longer run by hand; the default keeps each engine under a minute. */
const ROUNDS = Number(process.env.CREDIT_RACE_ROUNDS ?? 80);
const ACCOUNTS_PER_ROUND = 3;
const INSUFFICIENT = { status: 'error', code: 1023, message: 'insufficient fund' };
const NOT_FOUND = { status: 'error', message: 'slip not found: transaction not found or too old' };
const TOP_UP = `mutation ($accountId: ID!, $credits: Int!, $key: String!) {
  topUpCredits(accountId: $accountId, credits: $credits, reason: "race test", idempotencyKey: $key) { created }
}`;

const pick = (n: number) => Math.floor(Math.random() * n);

/** The sandbox bank, answering after a random few milliseconds so holds, settles and releases interleave differently each time. */
class JitteryBank implements BankAdapter {
  readonly name = 'sandbox';
  private readonly inner = new SandboxUpstream();
  async verify(query: SlipQuery, signal: AbortSignal): Promise<BankAnswer> {
    await sleep(pick(6));
    return this.inner.verify(query, signal);
  }
}

interface Sent {
  requestId: string;
  failsAtBank: boolean;
  status: number;
  body: unknown;
}

describe.each(testEngines())('credits racing near zero on %s', (engine) => {
  let app: GraphqlTestApp | undefined;
  afterAll(async () => {
    await app?.stop();
    await engine.dispose();
  });

  concurrencyCase(engine)(`${ROUNDS} rounds of holds, settles, releases and top-ups on accounts with 0 to 3 credits`, { timeout: 180_000 }, async () => {
    // The server's ERROR lines, so a failed answer shows why it failed.
    const logs: Record<string, unknown>[] = [];
    app = await startGraphqlApp({ databaseUrl: await engine.databaseUrl(), upstream: new JitteryBank(), logs });
    const running = app;
    const raw = await openRawBooks(running.databaseUrl);
    let sequence = 0;

    async function verify(apiKey: string, failsAtBank: boolean): Promise<Sent> {
      const requestId = `race-${++sequence}`;
      const qrcode = sandboxQr({ outcome: failsAtBank ? 'not-found' : 'success' });
      await sleep(pick(10));
      const res = await running.post({ qrcode }, { 'x-api-key': apiKey, 'x-request-id': requestId });
      return { requestId, failsAtBank, status: res.status, body: res.body };
    }
    async function topUp(accountId: string, credits: number, key: string): Promise<boolean> {
      await sleep(pick(10));
      return dataOf(await running.gql('support', TOP_UP, { accountId, credits, key })).topUpCredits.created as boolean;
    }

    async function round(r: number): Promise<void> {
      const starts = Array.from({ length: ACCOUNTS_PER_ROUND }, () => pick(4));
      const accounts = await Promise.all(starts.map((credits) => running.account(credits)));
      const work = accounts.map(async ({ accountId, apiKey }, a) => {
        const repeatedKey = `race-${r}-${a}-repeated`;
        const repeated = 1 + pick(3);
        const ownKeys = pick(3);
        const [sent, repeats, own] = await Promise.all([
          Promise.all(Array.from({ length: 4 + pick(6) }, () => verify(apiKey, Math.random() < 0.3))),
          Promise.all(Array.from({ length: 2 + pick(3) }, () => topUp(accountId, repeated, repeatedKey))),
          Promise.all(Array.from({ length: ownKeys }, (_, k) => topUp(accountId, 1, `race-${r}-${a}-own-${k}`))),
        ]);
        return { accountId, sent, ledger: starts[a]! + repeated + ownKeys, repeats, own };
      });
      for (const { accountId, sent, ledger, repeats, own } of await Promise.all(work)) {
        const where = `round ${r}, account ${accountId}`;
        // Never 503 or 500: each verification is answered for itself.
        for (const s of sent) {
          const allowed = s.failsAtBank ? [{ status: 200, body: NOT_FOUND }, { status: 400, body: INSUFFICIENT }] : [{ status: 200, body: 'success' }, { status: 400, body: INSUFFICIENT }];
          const answer = { status: s.status, body: (s.body as { status?: string }).status === 'success' ? 'success' : s.body };
          const why = () => JSON.stringify(logs.filter((l) => l.requestId === s.requestId));
          expect(allowed, `${where}: ${s.requestId} answered ${JSON.stringify(s.body)} (${s.status}); logged ${why()}`).toContainEqual(answer);
        }
        expect(repeats.filter(Boolean), `${where}: a repeated top-up key applies once`).toHaveLength(1);
        expect(own.every(Boolean), `${where}: every top-up of its own key applies`).toBe(true);

        // Identities: told "verified" = recorded = charged.
        const verified = sent.filter((s) => s.status === 200 && (s.body as { status: string }).status === 'success').map((s) => s.requestId).sort();
        expect(await raw.verifiedRequestIds(accountId), where).toEqual(verified);
        const books = await reconcileAccount(running.store, accountId);
        expect(books.problems, where).toEqual([]);
        expect({ held: books.held, usage: books.usage, verifyTransactions: books.verifyTransactions }, where).toEqual({
          held: 0,
          usage: verified.length,
          verifyTransactions: verified.length,
        });
        expect({ ledgerTotal: books.ledgerTotal, credits: books.credits }, `${where}: what was added, less what was charged`).toEqual({
          ledgerTotal: ledger,
          credits: ledger - verified.length,
        });
      }
    }

    try {
      for (let r = 0; r < ROUNDS; r++) await round(r);
    } finally {
      await raw.close();
    }
  });
});
