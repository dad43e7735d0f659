// Registered receivers and the receiver policy on PostgreSQL.
import type { Receiver, ReceiverPolicy } from '../../domain/types.js';
import type { PgDb } from './db.js';
import * as row from './rows.js';

export async function createReceiver(db: PgDb, r: Receiver): Promise<void> {
  await db.run(
    'INSERT INTO receivers (id, account_id, kind, bank_code, number, proxy_type, name_th, name_en, label, active, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)',
    [r.id, r.accountId, r.kind, r.bankCode, r.number, r.proxyType, r.nameTh, r.nameEn, r.label, r.active, r.createdAt],
  );
}

export async function getReceiver(db: PgDb, id: string): Promise<Receiver | null> {
  const { rows } = await db.run<row.ReceiverRow>('SELECT * FROM receivers WHERE id = $1', [row.noNul(id)]);
  return rows[0] ? row.receiver(rows[0]) : null;
}

export async function listReceivers(db: PgDb, accountId: string): Promise<Receiver[]> {
  const { rows } = await db.run<row.ReceiverRow>('SELECT * FROM receivers WHERE account_id = $1 ORDER BY created_at, id', [row.noNul(accountId)]);
  return rows.map(row.receiver);
}

export async function setReceiverActive(db: PgDb, id: string, active: boolean): Promise<boolean> {
  return (await db.run('UPDATE receivers SET active = $1 WHERE id = $2', [active, row.noNul(id)])).rowCount === 1;
}

export async function deleteReceiver(db: PgDb, id: string): Promise<boolean> {
  return (await db.run('DELETE FROM receivers WHERE id = $1', [row.noNul(id)])).rowCount === 1;
}

export async function setReceiverPolicy(db: PgDb, accountId: string, policy: ReceiverPolicy): Promise<boolean> {
  return (await db.run('UPDATE accounts SET receiver_policy = $1 WHERE id = $2 AND deleted_at IS NULL', [policy, row.noNul(accountId)])).rowCount === 1;
}
