// Many verification records of one account, written straight into a SQLite
// file (the store's own path would take minutes for tens of thousands),
// each naming the same sender: what an erasure must remove from every byte.
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';

export const ERASED_NAME = 'นางสาว ลบแล้ว ทดสอบ';

/** `n` verifications of `accountId` a day old, references SEED<account>00000000…; books kept whole (usage + n, credits - n). */
export function seedVerifications(file: string, accountId: string, n: number, senderName = ERASED_NAME): void {
  const db = new Database(file);
  const insert = db.prepare(`INSERT INTO verify_transactions
    (id, account_id, key_id, request_id, qrcode, transaction_id, amount, sending_bank, receiving_bank, upstream, latency_ms, response, created_at)
    VALUES (?, ?, 'key_seed', ?, ?, ?, 100, '004', '014', 'sandbox', 5, ?, ?)`);
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const ref = `SEED${accountId.slice(-6)}${String(i).padStart(8, '0')}`;
      const response = { amount: 100, transactionId: ref, senderName, senderNameEN: 'MISS ERASED', senderBankAccountNumber: '123-4-56789-0', rawData: { note: 'x'.repeat(300) } };
      insert.run(`vfy_${randomUUID()}`, accountId, `req_${i}`, `QR ${senderName} ${ref}`, ref, JSON.stringify(response), Date.now() - 86_400_000 + i);
    }
    db.prepare('UPDATE accounts SET usage = usage + ?, credits = credits - ? WHERE id = ?').run(n, n, accountId);
  })();
  db.close();
}
