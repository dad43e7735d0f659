import Database from 'better-sqlite3';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/temp.js';
import { storeContract } from './contract.js';

storeContract('sqlite', async () => {
  const dir = tempDir();
  const file = join(dir.path, 'contract.db');
  const store = new SqliteStore(file);
  await store.migrate();
  // A second connection of our own: the probe reads what SQLite really holds.
  const db = new Database(file, { readonly: true });
  const all = <T>(sql: string, ...args: unknown[]) => db.prepare(sql).all(...args) as T[];
  return {
    store,
    probe: {
      balance: async (id) => (db.prepare('SELECT credits, usage FROM accounts WHERE id = ?').get(id) as { credits: number; usage: number } | undefined) ?? null,
      holdIds: async (id) => all<{ id: string }>('SELECT id FROM credit_holds WHERE account_id = ? ORDER BY created_at', id).map((r) => r.id),
      countVerifyTransactions: async (id) => all<{ n: number }>('SELECT count(*) AS n FROM verify_transactions WHERE account_id = ?', id)[0]!.n,
      requestErrorKinds: async (id) => all<{ kind: string }>('SELECT kind FROM request_errors WHERE account_id = ? ORDER BY created_at', id).map((r) => r.kind),
      ledgerDeltas: async (id) => all<{ delta: number }>('SELECT delta FROM credit_ledger WHERE account_id = ? ORDER BY created_at, id', id).map((r) => r.delta),
      storedKey: async (id) => (db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as Record<string, unknown> | undefined) ?? null,
    },
    dispose: async () => {
      db.close();
      await store.close();
      dir.remove();
    },
  };
});
