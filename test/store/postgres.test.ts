import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { storeContract } from './contract.js';

storeContract('postgres', async () => {
  const db = await createTestDatabase();
  const store = new PostgresStore(db.url);
  await store.migrate();
  // A connection of our own: the probe reads what PostgreSQL really holds.
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const all = async <T extends pg.QueryResultRow>(sql: string, ...args: unknown[]) => (await client.query<T>(sql, args)).rows;
  return {
    store,
    probe: {
      accountName: async (id) => (await all<{ name: string }>('SELECT name FROM accounts WHERE id = $1', id))[0]?.name ?? null,
      balance: async (id) => (await all<{ credits: number; usage: number }>('SELECT credits, usage FROM accounts WHERE id = $1', id))[0] ?? null,
      holdIds: async (id) => (await all<{ id: string }>('SELECT id FROM credit_holds WHERE account_id = $1 ORDER BY created_at', id)).map((r) => r.id),
      countVerifyTransactions: async (id) => (await all<{ n: number }>('SELECT count(*)::int AS n FROM verify_transactions WHERE account_id = $1', id))[0]!.n,
      verifyTransactionIds: async (id) =>
        await all<{ id: string; requestId: string }>('SELECT id, request_id AS "requestId" FROM verify_transactions WHERE account_id = $1 ORDER BY id COLLATE "C"', id),
      requestErrorIds: async (id) => await all<{ id: string; kind: string }>('SELECT id, kind FROM request_errors WHERE account_id = $1 ORDER BY id COLLATE "C"', id),
      requestErrorKinds: async (id) => (await all<{ kind: string }>('SELECT kind FROM request_errors WHERE account_id = $1 ORDER BY created_at', id)).map((r) => r.kind),
      ledgerDeltas: async (id) => (await all<{ delta: number }>('SELECT delta FROM credit_ledger WHERE account_id = $1 ORDER BY created_at, id', id)).map((r) => r.delta),
      storedKey: async (id) => (await all<Record<string, unknown>>('SELECT * FROM api_keys WHERE id = $1', id))[0] ?? null,
      holdInstanceIds: async (id) =>
        (await all<{ instance_id: string | null }>('SELECT instance_id FROM credit_holds WHERE account_id = $1 ORDER BY created_at', id)).map((r) => r.instance_id),
      leaseExpiry: async (id) => (await all<{ expires_at: Date }>('SELECT expires_at FROM instance_leases WHERE id = $1', id))[0]?.expires_at ?? null,
      webhookDeliveryIds: async (id) => (await all<{ id: string }>('SELECT id FROM webhook_deliveries WHERE account_id = $1 ORDER BY id COLLATE "C"', id)).map((r) => r.id),
      storedWebhookSecret: async (id) => (await all<{ secret: string }>('SELECT secret FROM webhook_endpoints WHERE id = $1', id))[0]?.secret ?? null,
      storedRecheck: async (id) => {
        const r = (await all<{ attempts: number; next_attempt_at: Date; attempt_id: string | null; outcome: string | null; finished_at: Date | null; qrcode: string; line_channel_id: string | null; line_user_id: string | null }>('SELECT * FROM rechecks WHERE id = $1', id))[0];
        return r
          ? { attempts: r.attempts, nextAttemptAt: r.next_attempt_at, attemptId: r.attempt_id, outcome: r.outcome, finishedAt: r.finished_at, qrcode: r.qrcode, lineChannelId: r.line_channel_id, lineUserId: r.line_user_id }
          : null;
      },
      slipIndexed: async () => (await all("SELECT 1 FROM pg_indexes WHERE tablename = 'rechecks' AND indexname = 'rechecks_open_slip' AND indexdef LIKE '%(account_id, trans_ref, sending_bank)%'")).length === 1,
      storedLineSecrets: async (id) => (await all<{ secret: string; accessToken: string }>('SELECT secret, access_token AS "accessToken" FROM line_channels WHERE channel_id = $1', id))[0] ?? null,
      expireLease: async (id) => void (await all(`UPDATE instance_leases SET expires_at = clock_timestamp() - interval '1 hour' WHERE id = $1`, id)),
      insertSuccessRecord: async (accountId, holdId) =>
        void (await all(
          `INSERT INTO verify_transactions (id, account_id, key_id, request_id, qrcode, transaction_id, amount, sending_bank, receiving_bank, upstream, latency_ms, response, created_at)
           VALUES ($1, $2, 'key_test', $1, 'qr', 'TX', 1, '004', '014', 'sandbox', 1, '{}', now())`,
          holdId,
          accountId,
        )),
      storedReceivers: async (id) =>
        await all<{ id: string; number: string; bankCode: string | null; active: boolean }>(
          'SELECT id, number, bank_code AS "bankCode", active FROM receivers WHERE account_id = $1 ORDER BY created_at, id',
          id,
        ),
      storedReceiverPolicy: async (id) => (await all<{ receiver_policy: string }>('SELECT receiver_policy FROM accounts WHERE id = $1', id))[0]?.receiver_policy ?? null,
      storedCreditsLow: async (id) => (await all<{ at: number | null; notified: boolean }>('SELECT credits_low_at AS at, credits_low_notified AS notified FROM accounts WHERE id = $1', id))[0] ?? null,
      storedPayment: async (id) =>
        (await all<{ status: string; paidVerificationId: string | null }>('SELECT status, paid_verification_id AS "paidVerificationId" FROM payment_requests WHERE id = $1', id))[0] ?? null,
      storedVerdict: async (id) =>
        (
          await all<{ requestId: string | null; status: string | null; reason: string | null }>(
            'SELECT payment_request_id AS "requestId", payment_status AS status, payment_reason AS reason FROM verify_transactions WHERE id = $1',
            id,
          )
        )[0] ?? null,
    },
    dispose: async () => {
      await client.end();
      await store.close();
      await db.drop();
    },
  };
});
