// The payment-request part of the store contract (contract.ts calls it inside
// its describe, so every engine runs it): one request per reference, one
// pending request per unique amount, a request paid once and a slip paying
// once, even when the writes race (paying is part of the settle that charges
// the slip); the paid and expired events written with the state change.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/domain/ports/store.js';
import type { PayingSlip, PaymentRequest } from '../../src/domain/payments/types.js';
import type { NewWebhookDelivery } from '../../src/domain/webhooks/types.js';
import type { CaseFn } from '../helpers/skipped-guarantees.js';
import { payBySettle, settleWithVerdict } from '../helpers/pay-by-settle.js';
import type { PaymentRecord } from '../../src/domain/payments/types.js';

interface Fixtures {
  store: () => Store;
  account: (credits?: number) => Promise<string>;
  concurrency: CaseFn;
}

const id = (kind: string) => `${kind}_${randomUUID().replaceAll('-', '')}`;
const sorted = (ids: Iterable<string>) => [...ids].sort();
const MINUTE = 60_000;

export function request(accountId: string, over: Partial<PaymentRequest> = {}): PaymentRequest {
  const createdAt = new Date();
  return {
    id: id('pr'),
    accountId,
    receiverId: 'rcv_shop',
    target: { kind: 'promptpay', bankCode: null, number: '0812345678', proxyType: 'MSISDN', nameTh: 'ร้านกาแฟ ดีดี', nameEn: 'DEEDEE COFFEE' },
    reference: id('order'),
    amount: 25_000,
    requestedAmount: 25_000,
    uniqueAmount: false,
    promptpay: '00020101021229370016A000000677010111011300668123456785802TH530376454032506304ABCD',
    status: 'pending',
    createdAt,
    expiresAt: new Date(createdAt.getTime() + 30 * MINUTE),
    paidAt: null,
    paidBy: null,
    closedAt: null,
    successUrl: null,
    ...over,
  };
}

export function slip(over: Partial<PayingSlip> = {}): PayingSlip {
  return { verificationId: id('vt'), transactionId: id('TX').slice(0, 25), sendingBank: '004', amount: 25_000, transferredAt: new Date(), ...over };
}

/** One event per request for one endpoint, as the domain builds them. */
function events(endpointId: string, type: 'payment_request.paid' | 'payment_request.expired') {
  return (p: PaymentRequest): NewWebhookDelivery[] => {
    const eventId = id('evt');
    return [{ id: id('whd'), eventId, endpointId, accountId: p.accountId, type, body: JSON.stringify({ id: eventId, type, data: { id: p.id, status: p.status } }), createdAt: new Date() }];
  };
}
export const paidEvents = (endpointId: string, pr: PaymentRequest) => events(endpointId, 'payment_request.paid')({ ...pr, status: 'paid' });

/** The distinct paid event ids in the account's outbox. */
export async function paidEventIds(store: Store, accountId: string): Promise<string[]> {
  const deliveries = (await store.listWebhookDeliveries({ accountId, limit: 100 })).items;
  return [...new Set(deliveries.filter((d) => d.type === 'payment_request.paid').map((d) => d.eventId))];
}

/** The payment verdict kept with the slip's verification record. */
async function verdictOf(store: Store, accountId: string, paying: PayingSlip): Promise<PaymentRecord | undefined> {
  const page = await store.listVerifyTransactions({ accountId, transactionId: paying.transactionId, sendingBank: paying.sendingBank, limit: 50 });
  const record = page.items.find((r) => r.id === paying.verificationId);
  if (!record) throw new Error(`no record of ${paying.verificationId}`);
  return record.payment ?? undefined;
}


export function paymentContract(f: Fixtures): void {
  describe('payment requests', () => {
    it('creates, reads by id and by reference; the same reference hands back the first request', async () => {
      const accountId = await f.account(100);
      const first = request(accountId);
      expect(await f.store().createPaymentRequest(first)).toEqual({ status: 'created' });
      expect(await f.store().getPaymentRequest(first.id)).toEqual(first);
      expect(await f.store().findPaymentRequest(accountId, first.reference)).toEqual(first);
      const again = await f.store().createPaymentRequest(request(accountId, { reference: first.reference, amount: 99 }));
      expect(again).toEqual({ status: 'reference_taken', existing: first });
      // Another account's reference space is its own.
      const other = await f.account();
      expect(await f.store().createPaymentRequest(request(other, { reference: first.reference }))).toEqual({ status: 'created' });
      expect(await f.store().getPaymentRequest('pr_missing')).toBeNull();
      expect(await f.store().findPaymentRequest(accountId, 'no-such-order')).toBeNull();
    });

    it("keeps a request's successUrl (the checkout page's way back), and null without one", async () => {
      const accountId = await f.account(100);
      const back = request(accountId, { successUrl: 'https://shop.example/thanks?order=1' });
      expect(await f.store().createPaymentRequest(back)).toEqual({ status: 'created' });
      expect((await f.store().getPaymentRequest(back.id))?.successUrl).toBe('https://shop.example/thanks?order=1');
      const none = request(accountId);
      await f.store().createPaymentRequest(none);
      expect((await f.store().getPaymentRequest(none.id))?.successUrl).toBeNull();
    });

    it('counts checkout checks of a request up to a bound, atomically under concurrency', async () => {
      const accountId = await f.account(100);
      const p = request(accountId);
      await f.store().createPaymentRequest(p);
      const taken = await Promise.all(Array.from({ length: 12 }, () => f.store().takeCheckoutCheck(p.id, 5)));
      expect(taken.filter(Boolean)).toHaveLength(5);
      expect(await f.store().takeCheckoutCheck(p.id, 5)).toBe(false);
      expect(await f.store().takeCheckoutCheck(p.id, 6)).toBe(true);
      expect(await f.store().takeCheckoutCheck('pr_missing', 5)).toBe(false);
    });

    it('keeps the unique-amount setting per account (off by default)', async () => {
      const accountId = await f.account(100);
      expect(await f.store().uniquePaymentAmounts(accountId)).toBe(false);
      expect(await f.store().setUniquePaymentAmounts(accountId, true)).toBe(true);
      expect(await f.store().uniquePaymentAmounts(accountId)).toBe(true);
      expect(await f.store().setUniquePaymentAmounts('acc_missing', true)).toBe(false);
    });

    it('refuses a second pending unique amount of one receiver until the first stops being pending', async () => {
      const accountId = await f.account(100);
      const receiverId = id('rcv');
      const first = request(accountId, { receiverId, uniqueAmount: true });
      expect(await f.store().createPaymentRequest(first)).toEqual({ status: 'created' });
      expect(await f.store().createPaymentRequest(request(accountId, { receiverId, uniqueAmount: true }))).toEqual({ status: 'amount_taken' });
      // Without the setting amounts may repeat; another receiver has its own amounts.
      expect(await f.store().createPaymentRequest(request(accountId, { receiverId }))).toEqual({ status: 'created' });
      expect(await f.store().createPaymentRequest(request(accountId, { receiverId: id('rcv'), uniqueAmount: true }))).toEqual({ status: 'created' });
      await f.store().cancelPaymentRequest(first.id, new Date());
      expect(await f.store().createPaymentRequest(request(accountId, { receiverId, uniqueAmount: true }))).toEqual({ status: 'created' });
    });

    it('pays a pending request once, with its events in the same write', async () => {
      const accountId = await f.account(100);
      const endpointId = id('whe');
      const pr = request(accountId);
      await f.store().createPaymentRequest(pr);
      const paying = slip();
      const at = new Date();
      const paid = await payBySettle(f.store(), pr, paying, at, paidEvents(endpointId, pr));
      expect(paid).toEqual({ status: 'paid', request: { ...pr, status: 'paid', paidAt: at, paidBy: paying } });
      expect(await f.store().getPaymentRequest(pr.id)).toEqual({ ...pr, status: 'paid', paidAt: at, paidBy: paying });
      const deliveries = (await f.store().listWebhookDeliveries({ accountId, limit: 10 })).items;
      expect(deliveries.map((d) => [d.type, d.endpointId, JSON.parse(d.body).data])).toEqual([['payment_request.paid', endpointId, { id: pr.id, status: 'paid' }]]);
      // The same slip again (a retried verification) is told paid; another slip finds it paid.
      expect((await payBySettle(f.store(), pr, { ...paying, verificationId: id('vt') }, new Date()))?.status).toBe('paid');
      expect(await payBySettle(f.store(), pr, slip())).toMatchObject({ status: 'not_pending', request: { status: 'paid' } });
      // The slip that paid it cannot pay another request.
      const next = request(accountId);
      await f.store().createPaymentRequest(next);
      expect(await payBySettle(f.store(), next, { ...paying, verificationId: id('vt') })).toEqual({ status: 'slip_used', otherRequestId: pr.id });
      expect((await f.store().getPaymentRequest(next.id))?.status).toBe('pending');
      // The same transaction id from another sending bank is another slip.
      expect((await payBySettle(f.store(), next, { ...paying, verificationId: id('vt'), sendingBank: '014' }))?.status).toBe('paid');
      await expect(payBySettle(f.store(), request(accountId, { id: 'pr_missing' }), slip())).rejects.toMatchObject({ code: 'not_found' });
    });

    it('cancels only pending requests; a cancelled one is not paid', async () => {
      const accountId = await f.account(100);
      const pr = request(accountId);
      await f.store().createPaymentRequest(pr);
      const at = new Date();
      expect(await f.store().cancelPaymentRequest(pr.id, at)).toEqual({ ...pr, status: 'cancelled', closedAt: at });
      expect(await payBySettle(f.store(), pr, slip())).toMatchObject({ status: 'not_pending', request: { status: 'cancelled' } });
      const paid = request(accountId);
      await f.store().createPaymentRequest(paid);
      await payBySettle(f.store(), paid, slip(), new Date());
      expect((await f.store().cancelPaymentRequest(paid.id, new Date()))?.status).toBe('paid');
      expect(await f.store().cancelPaymentRequest('pr_missing', new Date())).toBeNull();
    });

    it('expires the due pending requests with their events, and only those', async () => {
      const accountId = await f.account(100);
      const endpointId = id('whe');
      const now = new Date();
      const due = request(accountId, { createdAt: new Date(now.getTime() - 40 * MINUTE), expiresAt: new Date(now.getTime() - 10 * MINUTE) });
      const notDue = request(accountId);
      const paidDue = request(accountId, { createdAt: due.createdAt, expiresAt: due.expiresAt });
      for (const p of [due, notDue, paidDue]) await f.store().createPaymentRequest(p);
      await payBySettle(f.store(), paidDue, slip(), now);
      const dueIds = (await f.store().duePaymentRequests(now, 1000)).map((p) => p.id);
      expect(dueIds).toContain(due.id);
      expect(dueIds).not.toContain(notDue.id);
      expect(dueIds).not.toContain(paidDue.id);
      // Asked for all three: only the pending one that is due is marked.
      const expired = await f.store().expirePaymentRequests([due.id, notDue.id, paidDue.id], now, events(endpointId, 'payment_request.expired'));
      expect(expired).toEqual([{ ...due, status: 'expired', closedAt: now }]);
      expect((await f.store().getPaymentRequest(notDue.id))?.status).toBe('pending');
      expect((await f.store().getPaymentRequest(paidDue.id))?.status).toBe('paid');
      const deliveries = (await f.store().listWebhookDeliveries({ accountId, limit: 10 })).items;
      expect(deliveries.map((d) => [d.type, JSON.parse(d.body).data])).toEqual([['payment_request.expired', { id: due.id, status: 'expired' }]]);
      expect(await payBySettle(f.store(), due, slip(), new Date())).toMatchObject({ status: 'not_pending', request: { status: 'expired' } });
      expect(await f.store().expirePaymentRequests([due.id], now, () => [])).toEqual([]);
      expect((await f.store().duePaymentRequests(now, 1000)).map((p) => p.id)).not.toContain(due.id);
    });

    it('the same slip settled again by other verifications is told paid and writes no second paid event', async () => {
      const accountId = await f.account(100);
      const endpointId = id('whe');
      const pr = request(accountId);
      await f.store().createPaymentRequest(pr);
      const paying = slip();
      const first = await payBySettle(f.store(), pr, paying, new Date(), paidEvents(endpointId, pr));
      // Each retry brings its own deliveries, as the verify path builds them; none is written.
      for (let i = 0; i < 3; i++) {
        const again = { ...paying, verificationId: id('vt') };
        const result = await payBySettle(f.store(), pr, again, new Date(), paidEvents(endpointId, pr));
        expect(result).toMatchObject({ status: 'paid', request: { paidBy: { verificationId: paying.verificationId } } });
        expect(await verdictOf(f.store(), accountId, again)).toEqual({ requestId: pr.id, status: 'paid', reason: null });
      }
      expect(first).toMatchObject({ status: 'paid', request: { paidBy: paying } });
      expect(await paidEventIds(f.store(), accountId)).toHaveLength(1);
    });

    it('time decides by the transfer: an expired request is paid by an in-time slip, never by a late one; the record keeps the verdict', async () => {
      const accountId = await f.account(100);
      const endpointId = id('whe');
      const now = new Date();
      const expiresAt = new Date(now.getTime() - 10 * MINUTE);
      const pr = request(accountId, { createdAt: new Date(now.getTime() - 40 * MINUTE), expiresAt });
      await f.store().createPaymentRequest(pr);
      expect(await f.store().expirePaymentRequests([pr.id], now, () => [])).toHaveLength(1);
      const expired = (await f.store().getPaymentRequest(pr.id))!;
      const late = slip({ transferredAt: new Date(expiresAt.getTime() + 1000) });
      expect(await payBySettle(f.store(), expired, late, now, paidEvents(endpointId, pr))).toMatchObject({ status: 'not_pending', request: { status: 'expired' } });
      expect(await verdictOf(f.store(), accountId, late)).toEqual({ requestId: pr.id, status: 'expired', reason: 'expired' });
      const inTime = slip({ transferredAt: expiresAt });
      expect(await payBySettle(f.store(), expired, inTime, now, paidEvents(endpointId, pr))).toMatchObject({ status: 'paid', request: { status: 'paid', paidBy: inTime } });
      expect(await f.store().getPaymentRequest(pr.id)).toMatchObject({ status: 'paid', paidAt: now, paidBy: inTime });
      expect(await verdictOf(f.store(), accountId, inTime)).toEqual({ requestId: pr.id, status: 'paid', reason: null });
      expect(await paidEventIds(f.store(), accountId)).toHaveLength(1);
      // A record the domain kept a refusal on reads it back; one without a payment has none.
      const refused = slip();
      await settleWithVerdict(f.store(), accountId, refused, { requestId: pr.id, status: 'paid', reason: 'already_paid' });
      expect(await verdictOf(f.store(), accountId, refused)).toEqual({ requestId: pr.id, status: 'paid', reason: 'already_paid' });
      const plain = slip();
      await settleWithVerdict(f.store(), accountId, plain, undefined);
      expect(await verdictOf(f.store(), accountId, plain)).toBeUndefined();
    });

    it('lists newest first, by account and status, page by page', async () => {
      const accountId = await f.account(100);
      const base = Date.now();
      const made = [0, 1, 2, 3].map((i) => request(accountId, { createdAt: new Date(base + i * 1000), expiresAt: new Date(base + 60 * MINUTE) }));
      for (const p of made) await f.store().createPaymentRequest(p);
      await f.store().cancelPaymentRequest(made[1]!.id, new Date());
      const first = await f.store().listPaymentRequests({ accountId, limit: 2 });
      const rest = await f.store().listPaymentRequests({ accountId, limit: 2, after: first.next });
      expect([...first.items, ...rest.items].map((p) => p.id)).toEqual([made[3]!.id, made[2]!.id, made[1]!.id, made[0]!.id]);
      expect((await f.store().listPaymentRequests({ accountId, status: 'cancelled', limit: 10 })).items.map((p) => p.id)).toEqual([made[1]!.id]);
    });

    it("reads an account's pending requests alone, newest first, with their own targets", async () => {
      const accountId = await f.account(100);
      const base = Date.now();
      const made = [0, 1, 2, 3, 4].map((i) => request(accountId, { createdAt: new Date(base + i * 1000), expiresAt: new Date(base + 60 * MINUTE) }));
      // A request made before targets were kept whose receiver was gone: no target, still listed.
      made[4] = { ...made[4]!, target: null };
      for (const p of made) await f.store().createPaymentRequest(p);
      await f.store().cancelPaymentRequest(made[1]!.id, new Date());
      await payBySettle(f.store(), made[2]!, slip(), new Date());
      await f.store().createPaymentRequest(request(await f.account(), { createdAt: new Date(base + 9000) }));
      expect(await f.store().pendingPaymentRequests(accountId, 10)).toEqual([made[4], made[3], made[0]]);
      expect((await f.store().pendingPaymentRequests(accountId, 2)).map((p) => p.id)).toEqual([made[4]!.id, made[3]!.id]);
      expect(await f.store().pendingPaymentRequests('acc_missing', 10)).toEqual([]);
    });

    f.concurrency('one reference created at once from many callers makes one request', async () => {
      const accountId = await f.account(100);
      const reference = id('order');
      const tries = Array.from({ length: 8 }, () => request(accountId, { reference }));
      const results = await Promise.all(tries.map((p) => f.store().createPaymentRequest(p)));
      const created = tries.filter((_, i) => results[i]?.status === 'created').map((p) => p.id);
      expect(created).toHaveLength(1);
      const stored = await f.store().findPaymentRequest(accountId, reference);
      expect(stored?.id).toBe(created[0]);
      for (const r of results) if (r?.status === 'reference_taken') expect(r.existing.id).toBe(created[0]);
    });

    f.concurrency('one unique amount asked for at once by many requests is pending in one', async () => {
      const accountId = await f.account(100);
      const receiverId = id('rcv');
      const tries = Array.from({ length: 8 }, () => request(accountId, { receiverId, uniqueAmount: true }));
      const results = await Promise.all(tries.map((p) => f.store().createPaymentRequest(p)));
      const created = tries.filter((_, i) => results[i]?.status === 'created').map((p) => p.id);
      expect(created).toHaveLength(1);
      const pending = (await f.store().listPaymentRequests({ accountId, status: 'pending', limit: 50 })).items.map((p) => p.id);
      expect(pending).toEqual(created);
    });

    f.concurrency('slips racing for one request: exactly one pays it, and the one told paid is the one recorded', async () => {
      const accountId = await f.account(100);
      const pr = request(accountId);
      await f.store().createPaymentRequest(pr);
      const slips = Array.from({ length: 8 }, () => slip());
      const results = await Promise.all(slips.map((s) => payBySettle(f.store(), pr, s, new Date())));
      const told = slips.filter((_, i) => results[i]?.status === 'paid');
      expect(told).toHaveLength(1);
      expect((await f.store().getPaymentRequest(pr.id))?.paidBy).toEqual(told[0]);
    });

    f.concurrency('one slip settled by several verifications at once pays once and writes one paid event', async () => {
      const accountId = await f.account(100);
      const endpointId = id('whe');
      const pr = request(accountId);
      await f.store().createPaymentRequest(pr);
      const paying = slip();
      const tries = Array.from({ length: 5 }, () => ({ ...paying, verificationId: id('vt') }));
      const results = await Promise.all(tries.map((s) => payBySettle(f.store(), pr, s, new Date(), paidEvents(endpointId, pr))));
      for (const r of results) expect(r?.status).toBe('paid');
      // Exactly one settle paid it (its own verification is the payer): the one whose event is stored.
      const payers = tries.filter((s, i) => results[i]?.status === 'paid' && results[i].request.paidBy?.verificationId === s.verificationId);
      expect(payers).toHaveLength(1);
      expect((await f.store().getPaymentRequest(pr.id))?.paidBy).toEqual(payers[0]);
      expect(await paidEventIds(f.store(), accountId)).toHaveLength(1);
    });

    f.concurrency('one slip racing for many requests pays at most one: requests told paid = requests recorded paid', async () => {
      const accountId = await f.account(100);
      const requests = Array.from({ length: 8 }, () => request(accountId));
      for (const p of requests) await f.store().createPaymentRequest(p);
      const paying = slip();
      const results = await Promise.all(requests.map((p) => payBySettle(f.store(), p, { ...paying, verificationId: id('vt') }, new Date())));
      const told = requests.filter((_, i) => results[i]?.status === 'paid').map((p) => p.id);
      const recorded = (await f.store().listPaymentRequests({ accountId, status: 'paid', limit: 50 })).items.map((p) => p.id);
      expect(told).toHaveLength(1);
      expect(sorted(recorded)).toEqual(sorted(told));
      for (const r of results) if (r?.status === 'slip_used') expect(r.otherRequestId).toBe(told[0]);
    });
  });
}
