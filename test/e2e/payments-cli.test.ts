// The payment request commands, black-box: `sandbox qr --pays` prints the
// slip that pays a request (from the request's own target: a receiver
// removed and added again changes nothing), and each refusal flag gets its
// refusal;
// `payments unique-amounts` turns the setting on (an admin event) and
// `payments list` shows the requests.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { tempDir } from '../helpers/temp.js';
import { create, shop, type Shop } from '../payments/helpers.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const exec = promisify(execFile);

describe('payment request commands', () => {
  const dir = tempDir();
  const databaseUrl = `sqlite:${join(dir.path, 'cli.db')}`;
  let app: TestApp;
  let merchant: Shop;
  beforeAll(async () => {
    app = await startApp({ databaseUrl });
    merchant = await shop(app, 20);
  });
  afterAll(async () => {
    await app?.stop();
    dir.remove();
  });

  const slipgate = async (...args: string[]) => {
    try {
      const { stdout } = await exec(process.execPath, [...SLIPGATE_CLI, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' } });
      return { code: 0, stdout: stdout.trim() };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout.trim(), stderr: e.stderr };
    }
  };
  const pay = async (qrcode: string, paymentRequest: string) => (await app.post({ qrcode, paymentRequest }, { 'x-api-key': merchant.apiKey })).body.paymentRequest;

  it('sandbox qr --pays pays the request exactly; --amount, --receiver-promptpay and --minutes-ago each get their refusal', { timeout: 60_000 }, async () => {
    const request = (await create(app, merchant, { amount: 333.33, reference: 'cli-1' })).body.data;
    const refusals = await Promise.all([
      slipgate('sandbox', 'qr', '--pays', request.id, '--amount', '333.00'),
      slipgate('sandbox', 'qr', '--pays', request.id, '--receiver-promptpay', '0899999999'),
      slipgate('sandbox', 'qr', '--pays', request.id, '--minutes-ago', '90'),
    ]);
    expect(await pay(refusals[0]!.stdout, request.id)).toEqual({ id: request.id, status: 'pending', reason: 'amount_mismatch' });
    expect(await pay(refusals[1]!.stdout, request.id)).toEqual({ id: request.id, status: 'pending', reason: 'wrong_receiver' });
    expect(await pay(refusals[2]!.stdout, request.id)).toEqual({ id: request.id, status: 'pending', reason: 'transferred_before_request' });
    const exact = await slipgate('sandbox', 'qr', '--pays', request.id);
    expect(exact.code).toBe(0);
    expect(await pay(exact.stdout, request.id)).toEqual({ id: request.id, status: 'paid' });
    expect((await slipgate('sandbox', 'qr', '--pays', 'pr_unknown')).code).not.toBe(0);
  });

  it('receivers remove and add of the same number (a name fixed) orphan no order: sandbox qr --pays makes its slip, and it pays', { timeout: 60_000 }, async () => {
    const s = await shop(app, 5, '0866666666');
    const request = (await create(app, s, { amount: 77, reference: 'cli-edit' })).body.data;
    expect((await slipgate('receivers', 'remove', s.receiverId)).code).toBe(0);
    const added = await slipgate('receivers', 'add', s.accountId, '--promptpay', '0866666666', '--name', 'SOMCHAI JAIDEE CO');
    expect(added.code).toBe(0);
    const exact = await slipgate('sandbox', 'qr', '--pays', request.id);
    expect(exact.code).toBe(0);
    expect((await app.post({ qrcode: exact.stdout, paymentRequest: request.id }, { 'x-api-key': s.apiKey })).body.paymentRequest).toEqual({ id: request.id, status: 'paid' });
  });

  it('turns unique amounts on and lists the requests', { timeout: 60_000 }, async () => {
    const on = await slipgate('payments', 'unique-amounts', merchant.accountId, 'on', '--reason', 'busy lunch');
    expect(on).toMatchObject({ code: 0, stdout: `Unique payment amounts of ${merchant.accountId} are now on.` });
    expect(await app.store.uniquePaymentAmounts(merchant.accountId)).toBe(true);
    const events = await app.store.listAdminEvents({ targetId: merchant.accountId, limit: 5 });
    expect(events.items[0]).toMatchObject({ action: 'setUniquePaymentAmounts', reason: 'busy lunch', details: { from: false, to: true } });
    const listed = JSON.parse((await slipgate('payments', 'list', merchant.accountId, '--status', 'paid', '--json')).stdout) as { reference: string }[];
    expect(listed.map((p) => p.reference)).toEqual(['cli-1']);
    expect((await slipgate('payments', 'list', merchant.accountId, '--status', 'lost')).code).not.toBe(0);
  });
});
