// The verify path reads an account's receiver policy and receivers from
// memory: one store read per account per API_KEY_CACHE_TTL_MS, a change made
// in this process seen at once, one made elsewhere once the TTL has passed.
// On a real SQLite store, counting the reads the verifications make.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { storeServices } from '../../../src/compose-store.js';
import { newId } from '../../../src/domain/keys/api-key.js';
import type { Store } from '../../../src/domain/ports/store.js';
import { ReceiverDirectory } from '../../../src/domain/receivers/directory.js';
import { VerificationService } from '../../../src/domain/verify/service.js';
import { createLogger } from '../../../src/log/log.js';
import { openStore } from '../../../src/store/open.js';
import { sandboxQr } from '../../../src/upstream/sandbox/sandbox-qr.js';
import { SandboxUpstream } from '../../../src/upstream/sandbox/sandbox-upstream.js';
import { UpstreamPool } from '../../../src/upstream/pool.js';
import { tempDir } from '../../helpers/temp.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup() {
  const dir = tempDir();
  const store = await openStore(`sqlite:${join(dir.path, 'receivers.db')}`);
  await store.migrate();
  cleanups.push(() => dir.remove(), () => store.close());
  // Counts what the verify path reads about receivers.
  const reads = { getAccount: 0, listReceivers: 0 };
  const counted: Store = Object.assign(Object.create(store) as Store, {
    getAccount: (id: string) => (reads.getAccount++, store.getAccount(id)),
    listReceivers: (id: string) => (reads.listReceivers++, store.listReceivers(id)),
  });
  const services = storeServices(counted, { keyCacheTtlMs: 60_000 });
  const verification = new VerificationService({
    store: counted,
    keys: services.keys,
    receivers: services.receiverDirectory,
    upstream: UpstreamPool.of(new SandboxUpstream(), { logger: createLogger('silent') }),
    timeoutMs: 2_000,
    logger: createLogger('silent'),
    newId: () => newId('req'),
  });
  const { account, apiKey } = await services.accounts.createAccount({ name: 'Shop', credits: 20, actor: 'test' });
  const verify = (details: { receiverAccount: string }) => {
    // Under the receiver's name: the rules want the name the bank prints to agree with the digits.
    const bytes = Buffer.from(JSON.stringify({ qrcode: sandboxQr({ details: { ...details, receiverName: 'ดีดี' } }) }));
    return verification.verify({ apiKey: apiKey.secret, readBody: async () => ({ ok: true, contentType: 'application/json', bytes }), requestId: newId('req') });
  };
  return { store, services, accountId: account.id, verify, reads };
}

describe('receivers on the verify path', () => {
  it('reads the policy and receivers once per account while the cache holds them, and a change here at once', async () => {
    const { services, accountId, verify, reads } = await setup();
    await services.admin.addReceiver('test', { accountId, bankCode: '014', account: '1233131090', nameTh: 'ดีดี' });
    await services.admin.setReceiverPolicy('test', accountId, 'require');
    const before = { ...reads };
    for (let i = 0; i < 5; i++) expect((await verify({ receiverAccount: '1233131090' })).kind).toBe('verified');
    expect(reads.getAccount - before.getAccount).toBe(1);
    expect(reads.listReceivers - before.listReceivers).toBe(1);

    // Made in this process: the next verification already sees it.
    await services.admin.setReceiverPolicy('test', accountId, 'off');
    const plain = await verify({ receiverAccount: '9999999999' });
    expect(plain).toMatchObject({ kind: 'verified' });
    expect('checks' in plain).toBe(false);
  });

  it('sees a change made elsewhere (the CLI, another instance) once its TTL has passed, not before', async () => {
    const { store, accountId } = await setup();
    const directory = new ReceiverDirectory(store, 5_000);
    expect(await directory.forAccount(accountId, 0)).toEqual({ policy: 'off', receivers: [] });
    // Another process's change goes straight to the store.
    await store.setReceiverPolicy(accountId, 'report');
    expect((await directory.forAccount(accountId, 4_999)).policy).toBe('off');
    expect((await directory.forAccount(accountId, 5_000)).policy).toBe('report');
  });
});
