// The SQLite group commit acknowledges a durable write (a settle, an audit
// record) only after its own fsync of the WAL file, run off the event loop
// (src/store/sqlite/wal-sync.ts). The power-loss test proves the fsync makes
// answered charges survive; this proves the acknowledgement waits for it,
// and that a failed fsync (made by lazyfs, test/powerloss/lazyfs, the way
// Linux fails one) stops the store for good (store-failure.ts).
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreFailedError } from '../../src/domain/ports/store.js';
import type { VerifyTransactionRecord } from '../../src/domain/types.js';
import { createAdminApp } from '../../src/http/admin-app.js';
import { createLogger } from '../../src/log/log.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { walSync } from '../../src/store/sqlite/wal-sync.js';
import { mountLazyDisk, type LazyDisk } from '../helpers/lazyfs.js';
import { tempDir } from '../helpers/temp.js';

let cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function lazyDisk(): Promise<LazyDisk> {
  const disk = await mountLazyDisk();
  cleanup.push(() => disk.dispose());
  return disk;
}

/** On `dir` (a lazyfs mount) or a fresh temporary folder. */
async function storeWithCredits(credits: number, dir?: string) {
  let folder = dir;
  if (!folder) {
    const temp = tempDir();
    cleanup.push(() => temp.remove());
    folder = temp.path;
  }
  const file = join(folder, 'wal.db');
  const store = new SqliteStore(file);
  cleanup.push(() => store.close());
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

  it('never acknowledges a settle whose sync failed; a hold committed with it does not wait for the sync', async () => {
    const disk = await lazyDisk();
    const { store, accountId } = await storeWithCredits(3, disk.mount);
    await store.holdCredit(hold(accountId, 'req_a'));
    await disk.failFsync('wal.db-wal', 1);
    // One batch: the settle waits for the WAL sync that fails, the hold only for the commit.
    const settled = store.settleHold(settlement(accountId, 'req_a'));
    const held = store.holdCredit(hold(accountId, 'req_b'));
    await expect(settled).rejects.toMatchObject({ code: 'unavailable', cause: { code: 'EIO' } });
    await expect(held).resolves.toEqual({ status: 'held', credits: 1 });
    expect(await disk.faults()).toMatch(/^failed-fsyncs 1 lost-bytes [1-9]\d*$/);
  });

  it('never hands the webhook worker an event whose charge is not on disk: a claim waits for the WAL sync too', async () => {
    const disk = await lazyDisk();
    const { store, accountId } = await storeWithCredits(3, disk.mount);
    await store.createWebhookEndpoint({ id: 'whe_wal', accountId, url: 'https://shop.example/hooks', events: ['verification.succeeded'], sealedSecret: 'plain:whsec', createdAt: new Date(), removedAt: null });
    await store.holdCredit(hold(accountId, 'req_a'));
    const event = { id: 'whd_wal', eventId: 'evt_wal', endpointId: 'whe_wal', accountId, type: 'verification.succeeded' as const, body: '{}', createdAt: new Date() };
    await disk.failFsync('wal.db-wal', 1);
    // One batch: the claim reads the settle's event before either is on disk.
    const settled = store.settleHold(settlement(accountId, 'req_a'), [event]);
    const claimed = store.claimWebhookDeliveries({ claim: 'claim_wal', now: new Date(), leaseMs: 60_000, limit: 10 });
    await expect(settled).rejects.toMatchObject({ code: 'unavailable' });
    await expect(claimed).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('after a failed WAL fsync, a later fsync that succeeds acknowledges nothing: the store has failed for good', async () => {
    const disk = await lazyDisk();
    const { store, accountId } = await storeWithCredits(3, disk.mount);
    await store.holdCredit(hold(accountId, 'req_a'));
    await store.holdCredit(hold(accountId, 'req_b'));
    await disk.failFsync('wal.db-wal', 1);
    await expect(store.settleHold(settlement(accountId, 'req_a'))).rejects.toMatchObject({ code: 'unavailable' });
    // Linux marks the pages of a failed write-back clean: the next fsync
    // succeeds without writing them, and the frames of req_a may be lost,
    // and with them (cumulative checksums) every later frame.
    await expect(store.settleHold(settlement(accountId, 'req_b'))).rejects.toMatchObject({ code: 'unavailable' });
    await expect(store.getAccount(accountId)).rejects.toBeInstanceOf(StoreFailedError);
    await expect(store.holdCredit(hold(accountId, 'req_c'))).rejects.toMatchObject({ code: 'unavailable' });
    await expect(store.ping()).rejects.toThrow(/fsync/);
    await expect(store.failed).resolves.toBeInstanceOf(StoreFailedError);
    expect(await disk.faults()).toMatch(/^failed-fsyncs 1 /);
  });

  it('a failed fsync inside a FULL commit of SQLite itself fails the store too', async () => {
    const disk = await lazyDisk();
    const { store, accountId } = await storeWithCredits(3, disk.mount);
    await disk.failFsync('wal.db-wal', 1);
    const topUp = { id: 'led_more', accountId, kind: 'top_up' as const, delta: 5, reason: 'test', actor: 'test', idempotencyKey: null, createdAt: new Date() };
    await expect(store.applyLedgerEntry(topUp)).rejects.toMatchObject({ code: 'unavailable' });
    await expect(store.getAccount(accountId)).rejects.toMatchObject({ code: 'unavailable' });
    await expect(store.failed).resolves.toMatchObject({ message: expect.stringMatching(/SQLITE_IOERR/) });
  });

  it('readiness reports a failed store as not ready, with the reason', async () => {
    const disk = await lazyDisk();
    const { store, accountId } = await storeWithCredits(3, disk.mount);
    const app = createAdminApp({ store, logger: createLogger('silent') });
    const server = app.listen(0, '127.0.0.1');
    cleanup.push(() => server.close());
    await once(server, 'listening');
    const readyz = `http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`;
    expect((await fetch(readyz)).status).toBe(200);
    await store.holdCredit(hold(accountId, 'req_a'));
    await disk.failFsync('wal.db-wal', 1);
    await expect(store.settleHold(settlement(accountId, 'req_a'))).rejects.toThrow();
    const res = await fetch(readyz);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { message: string }).message).toMatch(/^store failed: .*fsync.*restart/);
  });

  it('after one failed sync, a sync that would succeed still reports the failure', async () => {
    const dir = tempDir();
    cleanup.push(() => dir.remove());
    const path = join(dir.path, 'gone.db-wal');
    const sync = walSync(path);
    const outcome = () => new Promise<string>((resolve) => sync.afterSync(() => resolve('synced'), (err) => resolve((err as NodeJS.ErrnoException).code ?? 'error')));
    expect(await outcome()).toBe('ENOENT');
    writeFileSync(path, 'now it exists');
    expect(await outcome()).toBe('ENOENT');
    await sync.idle();
    sync.close();
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
