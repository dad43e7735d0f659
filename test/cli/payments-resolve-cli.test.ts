// `slipgate payments resolve` as a real process on the database a running
// slipgate serves from: a verified slip that paid nothing is attached to its
// order, recorded on disk (the request, the record's verdict, the admin
// event naming the operator); a refusal exits 2 (an input error) and changes nothing;
// a slip paid to someone else needs --force.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create, shop, slipFor, type Shop } from '../payments/helpers.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { sqliteRows } from '../helpers/sqlite-rows.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const run = promisify(execFile);

describe('slipgate payments resolve', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app?.stop());

  const file = () => app.databaseUrl.slice('sqlite:'.length);
  const slipgate = async (...args: string[]) => {
    const env = { ...process.env, DATABASE_URL: app.databaseUrl, LOG_LEVEL: 'silent', SLIPGATE_ACTOR: 'noi' };
    try {
      const { stdout, stderr } = await run(process.execPath, [...SLIPGATE_CLI, 'payments', 'resolve', ...args], { env });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  /** A verified slip sent without a request, and its record's id as stored. */
  async function verified(merchant: Shop, qrcode: string): Promise<string> {
    const res = await app.post({ qrcode }, { 'x-api-key': merchant.apiKey });
    expect(res.body.status).toBe('success');
    const [row] = sqliteRows<{ id: string }>(file(), `SELECT id FROM verify_transactions WHERE transaction_id = '${res.body.data.transactionId}'`);
    return row!.id;
  }
  const request = (id: string) => sqliteRows(file(), `SELECT status, paid_verification_id FROM payment_requests WHERE id = '${id}'`)[0];
  const verdict = (id: string) => sqliteRows(file(), `SELECT payment_request_id, payment_status, payment_reason FROM verify_transactions WHERE id = '${id}'`)[0];

  it('attaches the slip to its order, on disk and in the admin events; again it says so and changes nothing', { timeout: 90_000 }, async () => {
    const merchant = await shop(app, 3);
    const order = (await create(app, merchant, { amount: 120, reference: 'cli-1' })).body.data;
    const slip = await verified(merchant, slipFor({ amount: 120 }));

    const res = await slipgate(order.id, '--verification', slip, '--note', 'sent without the order id');
    expect(res).toMatchObject({ code: 0, stdout: `${order.id} (cli-1) is now paid by verification ${slip}.\n` });
    expect(request(order.id)).toEqual({ status: 'paid', paid_verification_id: slip });
    expect(verdict(slip)).toEqual({ payment_request_id: order.id, payment_status: 'paid', payment_reason: null });
    const events = sqliteRows<{ actor: string; reason: string; details: string }>(file(), `SELECT actor, reason, details FROM admin_events WHERE action = 'resolvePaymentRequest' AND target_id = '${merchant.accountId}'`);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actor: 'cli:noi', reason: 'sent without the order id' });
    expect(JSON.parse(events[0]!.details)).toMatchObject({ paymentRequestId: order.id, verificationId: slip, amountMismatch: false, receiverMismatch: false });

    const again = await slipgate(order.id, '--verification', slip, '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: false, paymentRequest: { id: order.id, status: 'paid' } });
    expect(sqliteRows(file(), `SELECT id FROM admin_events WHERE action = 'resolvePaymentRequest' AND target_id = '${merchant.accountId}'`)).toHaveLength(1);
  });

  it('refuses a slip paid to someone else without --force (exit 2, an input error: nothing changed), and takes it with --force', { timeout: 90_000 }, async () => {
    const merchant = await shop(app, 3, '0823456789');
    const order = (await create(app, merchant, { amount: 70, reference: 'cli-2' })).body.data;
    const slip = await verified(merchant, slipFor({ amount: 70, promptPay: '0899999999' }));

    const refused = await slipgate(order.id, '--verification', slip);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('wrong_receiver');
    expect(request(order.id)).toEqual({ status: 'pending', paid_verification_id: null });
    expect(verdict(slip)).toEqual({ payment_request_id: null, payment_status: null, payment_reason: null });

    const unknown = await slipgate(order.id, '--verification', 'req_nope');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('verification not found');

    const forced = await slipgate(order.id, '--verification', slip, '--force');
    expect(forced.code).toBe(0);
    expect(request(order.id)).toEqual({ status: 'paid', paid_verification_id: slip });
  });
});
