// A staff resolution of a slip sent in a LINE chat (SQLite, the simulator):
// two open orders of one amount leave the slip unmatched; staff attach it to
// one, and the customer who sent it is pushed the result in the channel's
// language, naming only that order; resolving it again pushes nothing more.
// A slip sent through the API has no chat: nobody is pushed.
import { afterAll, describe, expect, it } from 'vitest';
import { startLineRig, type LineRig } from '../helpers/line.js';
import { slipFor } from '../payments/helpers.js';
import { dataOf, postGraphql } from '../graphql/helpers.js';

const USER = 'U0000000000000000000000000000beef';
let rig: LineRig | undefined;
afterAll(() => rig?.stop());

const RESOLVE = `mutation ($pr: ID!, $v: ID!) { resolvePaymentRequest(paymentRequestId: $pr, verificationId: $v, note: "matched by staff") { changed paymentRequest { status } } }`;

/** Through GraphQL on the admin listener, as support staff. */
async function resolve(r: LineRig, paymentRequestId: string, verificationId: string): Promise<{ changed: boolean; paymentRequest: { status: string } }> {
  const { secret } = await r.app.adminTokens.create({ name: 'support-staff', role: 'support', actor: 'test' });
  return dataOf(await postGraphql(r.app.adminUrl, secret, RESOLVE, { pr: paymentRequestId, v: verificationId })).resolvePaymentRequest;
}

describe('LINE: a staff resolution is pushed to the customer', () => {
  it('pushes the customer once, in Thai, naming only the order their slip paid', { timeout: 60_000 }, async () => {
    const r = (rig = await startLineRig({ matchPaymentRequests: true, lang: 'th', credits: 10 }));
    await r.app.admin.addReceiver('test', { accountId: r.accountId, promptPay: '0812345678', nameEn: 'SOMCHAI JAIDEE' });
    const first = (await r.app.payments.create(r.accountId, { amount: 20_000, reference: 'INV-1', expiresInMinutes: 30 })).request;
    const second = (await r.app.payments.create(r.accountId, { amount: 20_000, reference: 'INV-2', expiresInMinutes: 30 })).request;

    await r.control(`/sim/send-text?user=${USER}`, { text: slipFor({ amount: 200 }) });
    expect((await r.answers(1))[0]!.text).toContain('ร้านค้าจะตรวจสอบและยืนยันให้');
    const [record] = (await r.app.store.listVerifyTransactions({ accountId: r.accountId, limit: 1 })).items;
    expect(record).toMatchObject({ source: 'line', lineUserId: USER });

    expect(await resolve(r, second.id, record!.id)).toEqual({ changed: true, paymentRequest: { status: 'PAID' } });
    const [, pushed] = await r.answers(2);
    expect(pushed).toMatchObject({ kind: 'push', to: USER });
    expect(pushed!.text).toBe('✅ ร้านค้ายืนยันสลิปของคุณแล้ว\nยอด ฿200.00\nชำระคำสั่งซื้อ INV-2');
    expect(pushed!.text).not.toContain('INV-1');
    expect((await r.app.store.getPaymentRequest(first.id))?.status).toBe('pending');

    // The same pair again changes nothing and pushes nothing.
    expect((await resolve(r, second.id, record!.id)).changed).toBe(false);
    // A slip verified through the API has no chat to tell: resolved, nobody pushed.
    const { apiKey } = await r.app.accounts.createApiKey(r.accountId).then((k) => ({ apiKey: k.secret }));
    const sent = await r.app.post({ qrcode: slipFor({ amount: 200 }) }, { 'x-api-key': apiKey });
    const viaApi = (await r.app.store.listVerifyTransactions({ accountId: r.accountId, transactionId: sent.body.data.transactionId, limit: 1 })).items[0]!;
    expect((await resolve(r, first.id, viaApi.id)).changed).toBe(true);
    expect(r.sim.log.filter((e) => e.kind === 'push')).toHaveLength(1);
  });
});
