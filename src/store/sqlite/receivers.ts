// Registered receivers and the receiver policy on SQLite.
import type { Receiver, ReceiverPolicy } from '../../domain/types.js';
import type { Lite } from './connection.js';
import { mapError } from './errors.js';
import * as row from './rows.js';

export async function createReceiver(lite: Lite, r: Receiver): Promise<void> {
  try {
    lite
      .sql('INSERT INTO receivers (id, account_id, kind, bank_code, number, proxy_type, name_th, name_en, label, active, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(r.id, r.accountId, r.kind, r.bankCode, r.number, r.proxyType, r.nameTh, r.nameEn, r.label, r.active ? 1 : 0, r.createdAt.getTime());
  } catch (err) {
    throw mapError(err);
  }
}

export async function getReceiver(lite: Lite, id: string): Promise<Receiver | null> {
  const r = lite.sql('SELECT * FROM receivers WHERE id = ?').get(id) as row.ReceiverRow | undefined;
  return r ? row.receiver(r) : null;
}

/** The verify path's cache reads an account's receivers by this (its plan is tested: the account index, no sort). */
export const LIST_RECEIVERS = 'SELECT * FROM receivers WHERE account_id = ? ORDER BY created_at, id';

export async function listReceivers(lite: Lite, accountId: string): Promise<Receiver[]> {
  return (lite.sql(LIST_RECEIVERS).all(accountId) as row.ReceiverRow[]).map(row.receiver);
}

export async function setReceiverActive(lite: Lite, id: string, active: boolean): Promise<boolean> {
  return lite.sql('UPDATE receivers SET active = ? WHERE id = ?').run(active ? 1 : 0, id).changes === 1;
}

export async function deleteReceiver(lite: Lite, id: string): Promise<boolean> {
  return lite.sql('DELETE FROM receivers WHERE id = ?').run(id).changes === 1;
}

export async function setReceiverPolicy(lite: Lite, accountId: string, policy: ReceiverPolicy): Promise<boolean> {
  return lite.sql('UPDATE accounts SET receiver_policy = ? WHERE id = ? AND deleted_at IS NULL').run(policy, accountId).changes === 1;
}
