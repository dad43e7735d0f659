import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openLite } from '../../src/store/sqlite/connection.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { sqliteRows } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { storeContract } from './contract.js';

storeContract('sqlite', async () => {
  const dir = tempDir();
  const file = join(dir.path, 'contract.db');
  const store = new SqliteStore(file);
  await store.migrate();
  // A second connection of our own: the probe reads what SQLite really holds
  // (and writes the few states a test must set up behind the adapter's back).
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  const all = <T>(sql: string, ...args: unknown[]) => db.prepare(sql).all(...args) as T[];
  return {
    store,
    probe: {
      accountName: async (id) => (db.prepare('SELECT name FROM accounts WHERE id = ?').get(id) as { name: string } | undefined)?.name ?? null,
      balance: async (id) => (db.prepare('SELECT credits, usage FROM accounts WHERE id = ?').get(id) as { credits: number; usage: number } | undefined) ?? null,
      holdIds: async (id) => all<{ id: string }>('SELECT id FROM credit_holds WHERE account_id = ? ORDER BY created_at', id).map((r) => r.id),
      countVerifyTransactions: async (id) => all<{ n: number }>('SELECT count(*) AS n FROM verify_transactions WHERE account_id = ?', id)[0]!.n,
      verifyTransactionIds: async (id) =>
        all<{ id: string; requestId: string }>('SELECT id, request_id AS requestId FROM verify_transactions WHERE account_id = ? ORDER BY id', id),
      requestErrorIds: async (id) => all<{ id: string; kind: string }>('SELECT id, kind FROM request_errors WHERE account_id = ? ORDER BY id', id),
      requestErrorKinds: async (id) => all<{ kind: string }>('SELECT kind FROM request_errors WHERE account_id = ? ORDER BY created_at', id).map((r) => r.kind),
      ledgerDeltas: async (id) => all<{ delta: number }>('SELECT delta FROM credit_ledger WHERE account_id = ? ORDER BY created_at, id', id).map((r) => r.delta),
      storedKey: async (id) => (db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as Record<string, unknown> | undefined) ?? null,
      holdInstanceIds: async (id) => all<{ instance_id: string | null }>('SELECT instance_id FROM credit_holds WHERE account_id = ? ORDER BY created_at', id).map((r) => r.instance_id),
      leaseExpiry: async (id) => {
        const r = db.prepare('SELECT expires_at FROM instance_leases WHERE id = ?').get(id) as { expires_at: number } | undefined;
        return r ? new Date(r.expires_at) : null;
      },
      expireLease: async (id) => void db.prepare('UPDATE instance_leases SET expires_at = 0 WHERE id = ?').run(id),
      webhookDeliveryIds: async (id) => all<{ id: string }>('SELECT id FROM webhook_deliveries WHERE account_id = ? ORDER BY id', id).map((r) => r.id),
      storedWebhookSecret: async (id) => all<{ secret: string }>('SELECT secret FROM webhook_endpoints WHERE id = ?', id)[0]?.secret ?? null,
      storedRecheck: async (id) => {
        const r = all<{ attempts: number; next_attempt_at: number; attempt_id: string | null; outcome: string | null; finished_at: number | null; qrcode: string; line_channel_id: string | null; line_user_id: string | null }>('SELECT * FROM rechecks WHERE id = ?', id)[0];
        return r
          ? { attempts: r.attempts, nextAttemptAt: new Date(r.next_attempt_at), attemptId: r.attempt_id, outcome: r.outcome, finishedAt: r.finished_at === null ? null : new Date(r.finished_at), qrcode: r.qrcode, lineChannelId: r.line_channel_id, lineUserId: r.line_user_id }
          : null;
      },
      slipIndexed: async () => all("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'rechecks_open_slip' AND sql LIKE '%account_id, trans_ref%'").length === 1,
      storedLineSecrets: async (id) => all<{ secret: string; accessToken: string }>('SELECT secret, access_token AS accessToken FROM line_channels WHERE channel_id = ?', id)[0] ?? null,
      insertSuccessRecord: async (accountId, holdId) =>
        void db
          .prepare(`INSERT INTO verify_transactions (id, account_id, key_id, request_id, qrcode, transaction_id, amount, sending_bank, receiving_bank, upstream, latency_ms, response, created_at)
            VALUES (?, ?, 'key_test', ?, 'qr', 'TX', 1, '004', '014', 'sandbox', 1, '{}', ?)`)
          .run(holdId, accountId, holdId, Date.now()),
      storedReceivers: async (id) =>
        all<{ id: string; number: string; bank_code: string | null; active: number }>('SELECT id, number, bank_code, active FROM receivers WHERE account_id = ? ORDER BY created_at, id', id).map(
          (r) => ({ id: r.id, number: r.number, bankCode: r.bank_code, active: r.active === 1 }),
        ),
      storedReceiverPolicy: async (id) => (db.prepare('SELECT receiver_policy FROM accounts WHERE id = ?').get(id) as { receiver_policy: string } | undefined)?.receiver_policy ?? null,
      storedCreditsLow: async (id) => {
        const r = db.prepare('SELECT credits_low_at AS at, credits_low_notified AS notified FROM accounts WHERE id = ?').get(id) as { at: number | null; notified: number } | undefined;
        return r ? { at: r.at, notified: r.notified === 1 } : null;
      },
      storedPayment: async (id) =>
        (db.prepare('SELECT status, paid_verification_id AS paidVerificationId FROM payment_requests WHERE id = ?').get(id) as { status: string; paidVerificationId: string | null } | undefined) ?? null,
      storedVerdict: async (id) =>
        (db.prepare('SELECT payment_request_id AS requestId, payment_status AS status, payment_reason AS reason FROM verify_transactions WHERE id = ?').get(id) as
          | { requestId: string | null; status: string | null; reason: string | null }
          | undefined) ?? null,
    },
    dispose: async () => {
      db.close();
      await store.close();
      dir.remove();
    },
  };
});

describe('sqlite store: several processes on one file', () => {
  it('migrates a fresh file once when four processes open it at the same instant', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const file = join(dir.path, 'shared.db');
    const script = fileURLToPath(new URL('./fixtures/open-sqlite-store.ts', import.meta.url));
    // Each child loads, says "ready", and opens the file only on "go": all
    // four get it once every one of them is ready.
    const children = Array.from({ length: 4 }, () => spawn(process.execPath, ['--import', 'tsx', script, file], { stdio: ['pipe', 'pipe', 'inherit'] }));
    const said = children.map((child) => {
      const lines = createInterface({ input: child.stdout! });
      const ready = new Promise<void>((resolve) => lines.once('line', () => resolve()));
      const result = ready.then(() => new Promise<string>((resolve) => lines.once('line', resolve)));
      return { ready, result, exited: once(child, 'exit') };
    });
    try {
      await Promise.all(said.map((s) => s.ready));
      for (const child of children) child.stdin!.write('go\n');
      expect(await Promise.all(said.map((s) => s.result))).toEqual(['ok', 'ok', 'ok', 'ok']);
      await Promise.all(said.map((s) => s.exited));
      const versions = sqliteRows<{ version: number }>(file, 'SELECT version FROM schema_migrations ORDER BY version');
      expect(versions.map((v) => v.version)).toEqual(SQLITE_MIGRATIONS.map((_, i) => i + 1));
    } finally {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      dir.remove();
    }
  });
});

describe('sqlite connection', () => {
  it('keeps temporary data in memory: a group-commit batch never creates a temporary file for its savepoints', () => {
    const dir = tempDir();
    const lite = openLite(join(dir.path, 'temp-store.db'));
    try {
      // 2 = MEMORY. With the default (a file), the savepoints of a batch of a
      // few verifications spill their undo pages past 64 KiB into a file that
      // is created, unlinked and written for nearly every batch.
      expect(lite.db.pragma('temp_store', { simple: true })).toBe(2);
    } finally {
      lite.db.close();
      dir.remove();
    }
  });
});
