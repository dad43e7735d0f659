// Banks that publish late, in the sandbox: `sandbox qr --outcome late
// --after-seconds N` (a real CLI process) makes a slip the real verify route
// answers "not found" until N seconds after it was made, then as a success,
// with every other option; `--outcome not-found` is never found, with --pays
// too. The sandbox's clock is moved instead of waiting.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSlipQr } from '../../src/domain/verify/slip-qr.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { slipgateCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { create, shop, type Shop } from '../payments/helpers.js';

describe('late slips in the sandbox', () => {
  const dir = tempDir();
  const databaseUrl = `sqlite:${join(dir.path, 'late.db')}`;
  /** How far the sandbox's clock is ahead of the wall clock. */
  let ahead = 0;
  let app: TestApp;
  let merchant: Shop;
  beforeAll(async () => {
    app = await startApp({ databaseUrl, upstream: new SandboxUpstream('sandbox', 0, () => Date.now() + ahead) });
    merchant = await shop(app, 20);
  });
  afterAll(async () => {
    await app?.stop();
    dir.remove();
  });

  const slipgate = slipgateCli({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
  const verify = (body: Record<string, unknown>) => app.post(body, { 'x-api-key': merchant.apiKey });

  it('pays a request only once the bank has published the slip, charged once', { timeout: 60_000 }, async () => {
    ahead = 0;
    const request = (await create(app, merchant, { amount: 250, reference: 'late-1' })).body.data;
    const qr = await slipgate('sandbox', 'qr', '--outcome', 'late', '--after-seconds', '600', '--pays', request.id);
    expect(qr.code).toBe(0);
    expect(parseSlipQr(qr.stdout)).toMatchObject({ ok: true });
    const before = await app.store.getAccount(merchant.accountId);

    // Not published yet: kept for re-checks (docs/payments.md#re-checks), nothing charged.
    const early = await verify({ qrcode: qr.stdout, paymentRequest: request.id });
    expect(early.status).toBe(202);
    expect(early.body).toMatchObject({ status: 'pending', paymentRequest: { id: request.id, status: 'verifying' } });
    ahead = 599_000;
    expect((await verify({ qrcode: qr.stdout })).body).toMatchObject({ status: 'error', message: expect.stringMatching(/slip not found/) });
    expect((await app.store.getAccount(merchant.accountId))?.credits).toBe(before!.credits);

    ahead = 601_000;
    const later = await verify({ qrcode: qr.stdout, paymentRequest: request.id });
    expect(later.body).toMatchObject({ status: 'success', data: { amount: 250 }, paymentRequest: { id: request.id, status: 'paid' } });
    expect((await app.store.getAccount(merchant.accountId))?.credits).toBe(before!.credits - 1);
  });

  it('combines with the amount and the receiver options, for a plain verify', { timeout: 60_000 }, async () => {
    ahead = 0;
    const qr = await slipgate('sandbox', 'qr', '--outcome', 'late', '--after-seconds', '90', '--amount', '42.50', '--receiver-account', '123-3-13109-0', '--receiver-bank', '014', '--receiver-name', 'DEEDEE', '--minutes-ago', '1');
    expect(qr.code).toBe(0);
    expect((await verify({ qrcode: qr.stdout })).body).toMatchObject({ status: 'error', message: expect.stringMatching(/slip not found/) });
    ahead = 91_000;
    const found = await verify({ qrcode: qr.stdout });
    expect(found.body).toMatchObject({ status: 'success', data: { amount: 42.5, receiverName: 'DEEDEE', receiverBankAccountNumber: 'xxx-x-x3109-x', receiverBankCode: '014' } });
  });

  it('--outcome not-found with --pays is never found', { timeout: 60_000 }, async () => {
    ahead = 0;
    const request = (await create(app, merchant, { amount: 99, reference: 'never-1' })).body.data;
    const qr = await slipgate('sandbox', 'qr', '--outcome', 'not-found', '--pays', request.id);
    expect(qr.code).toBe(0);
    ahead = 30 * 86_400_000;
    expect((await verify({ qrcode: qr.stdout })).body).toMatchObject({ status: 'error', message: expect.stringMatching(/slip not found/) });
    // Sent for its request, it is kept for re-checks rather than refused: the bank still does not know it.
    const kept = await verify({ qrcode: qr.stdout, paymentRequest: request.id });
    expect(kept.status).toBe(202);
    expect(kept.body).toMatchObject({ status: 'pending', paymentRequest: { id: request.id, status: 'verifying' } });
  });

  it('refuses --after-seconds without --outcome late, and a delay out of range', async () => {
    const [alone, negative] = await Promise.all([
      slipgate('sandbox', 'qr', '--after-seconds', '5'),
      slipgate('sandbox', 'qr', '--outcome', 'late', '--after-seconds', '-1'),
    ]);
    expect(alone.code).not.toBe(0);
    expect(alone.stderr).toMatch(/--after-seconds goes with --outcome late/);
    expect(negative.code).not.toBe(0);
    expect(negative.stderr).toMatch(/--after-seconds must be a whole number/);
  });
});
