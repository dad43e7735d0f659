// The duplicate check fails closed: when the history lookup breaks after the
// verification was charged, the slip is still answered as verified and the
// check says it does not know (passed: false), instead of "not seen".
import { storeServices } from '../../../src/compose-store.js';
import { verifyAnswer } from '../../../src/http/verify-answer.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../../src/domain/accounts/operations.js';
import { newId } from '../../../src/domain/keys/api-key.js';
import { VerificationService } from '../../../src/domain/verify/service.js';
import { createLogger } from '../../../src/log/log.js';
import { openStore } from '../../../src/store/open.js';
import type { Store } from '../../../src/domain/ports/store.js';
import { sandboxQr } from '../../../src/upstream/sandbox/sandbox-qr.js';
import { UpstreamPool } from '../../../src/upstream/pool.js';
import { SandboxUpstream } from '../../../src/upstream/sandbox/sandbox-upstream.js';
import { tempDir } from '../../helpers/temp.js';

describe('duplicate check when the history lookup fails', () => {
  const dir = tempDir();
  let store: Store;
  beforeAll(async () => {
    store = await openStore(`sqlite:${join(dir.path, 'checks.db')}`);
    await store.migrate();
  });
  afterAll(async () => {
    await store?.close();
    dir.remove();
  });

  it('answers success, charges once and reports the check as unknown', async () => {
    // A real SQLite store whose audit listing breaks (as during a failover).
    const failing = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'listVerifyTransactions') return () => Promise.reject(new Error('connection lost'));
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const { account, apiKey } = await new AccountService(store).createAccount({ name: 'Shop', credits: 2, actor: 'test' });
    const verification = new VerificationService({
      store: failing,
      keys: storeServices(failing).keys,
      upstream: UpstreamPool.of(new SandboxUpstream()),
      timeoutMs: 2_000,
      logger: createLogger('silent'),
      newId: () => newId('req'),
    });
    const bytes = Buffer.from(JSON.stringify({ qrcode: sandboxQr({ amount: 10 }), checks: { duplicate: true, amount: 10 } }));
    const out = verifyAnswer(
      await verification.verify({ apiKey: apiKey.secret, readBody: async () => ({ ok: true, contentType: 'application/json', bytes }), requestId: 'r1' }),
    );
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({
      status: 'success',
      checks: {
        duplicate: { passed: false, error: expect.stringMatching(/could not look up earlier verifications/) },
        amount: { passed: true },
      },
    });
    expect(await store.getAccount(account.id)).toMatchObject({ credits: 1, held: 0, usage: 1 });
  });
});
