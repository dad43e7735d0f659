// The SQLite group commit acknowledges a durable write (a settle, an audit
// record) only after its own fsync of the WAL file, run off the event loop
// (src/store/sqlite/wal-sync.ts). The power-loss test proves the fsync makes
// answered charges survive; this proves the acknowledgement waits for it.
import { existsSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { VerifyTransactionRecord } from '../../src/domain/types.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { walSync } from '../../src/store/sqlite/wal-sync.js';
import { tempDir } from '../helpers/temp.js';

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const step of cleanup.splice(0)) step();
});

async function storeWithCredits(credits: number) {
  const dir = tempDir();
  const file = join(dir.path, 'wal.db');
  const store = new SqliteStore(file);
  cleanup.push(() => dir.remove());
  const account = await store.createAccount({ id: 'acc_wal', name: 'Shop', createdAt: new Date() });
  await store.applyLedgerEntry({ id: 'led_wal', accountId: account.id, kind: 'top_up', delta: credits, reason: 'test', actor: 'test', idempotencyKey: null, createdAt: new Date() });
  return { store, file, accountId: account.id };
}

function settlement(accountId: string, id: string): VerifyTransactionRecord {
  return {
    id,
    accountId,
    keyId: 'key_wal',
    requestId: id,
    qrcode: 'qr',
    transactionId: `TX-${id}`,
    amount: 1,
    sendingBank: '004',
    receivingBank: '014',
    upstream: 'sandbox',
    latencyMs: 1,
    response: { amount: 1 } as unknown as VerifyTransactionRecord['response'],
    createdAt: new Date(),
  };
}

const hold = (accountId: string, id: string) => ({ id, accountId, keyId: 'key_wal', createdAt: new Date(), instanceId: null });

describe('SQLite WAL sync off the event loop', () => {
  it('acknowledges settles committed together once their WAL is synced', async () => {
    const { store, file, accountId } = await storeWithCredits(50);
    const ids = Array.from({ length: 50 }, (_, i) => `req_${i}`);
    await Promise.all(ids.map((id) => store.holdCredit(hold(accountId, id))));
    await Promise.all(ids.map((id) => store.settleHold(settlement(accountId, id))));
    expect(existsSync(`${file}-wal`)).toBe(true);
    expect(await store.getAccount(accountId)).toMatchObject({ credits: 0, usage: 50 });
    await store.close();
  });

  it('never acknowledges a settle whose sync failed; holds and releases do not wait for a sync', async () => {
    const { store, file, accountId } = await storeWithCredits(3);
    await store.holdCredit(hold(accountId, 'req_a'));
    // SQLite keeps writing to the file it holds open; the store's own sync
    // opens the WAL by name when it is first needed, and now cannot.
    unlinkSync(`${file}-wal`);
    const settled = store.settleHold(settlement(accountId, 'req_a'));
    const held = store.holdCredit(hold(accountId, 'req_b'));
    await expect(settled).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(held).resolves.toEqual({ status: 'held', credits: 1 });
    const released = await store.releaseHold({
      id: 'req_b',
      accountId,
      keyId: 'key_wal',
      requestId: 'req_b',
      qrcode: null,
      transactionId: null,
      sendingBank: null,
      kind: 'slip_not_found',
      message: 'not found',
      upstream: 'sandbox',
      latencyMs: 1,
      createdAt: new Date(),
    });
    expect(released).toBe(2);
    await store.close();
  });

  it('reports a sync it could not make to every write waiting for it', async () => {
    const sync = walSync('/nonexistent-dir/slipgate.db-wal');
    const outcomes = await Promise.all(
      [1, 2, 3].map(() => new Promise<string>((resolve) => sync.afterSync(() => resolve('synced'), (err) => resolve((err as NodeJS.ErrnoException).code ?? 'error')))),
    );
    expect(outcomes).toEqual(['ENOENT', 'ENOENT', 'ENOENT']);
    await sync.idle();
    sync.close();
  });
});
