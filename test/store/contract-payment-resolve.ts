// Staff resolution in the store contract (contract.ts calls it inside its
// describe, so every engine runs it): a charged slip that paid nothing is
// attached to a pending or expired request by the same once-rules as a
// settle's payment, with the verdict kept on the verification's record and
// one paid event; checked through each engine's own driver (the probe).
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/domain/ports/store.js';
import type { PayingSlip, PaymentRequest } from '../../src/domain/payments/types.js';
import type { CaseFn } from '../helpers/skipped-guarantees.js';
import { payBySettle, settleWithVerdict } from '../helpers/pay-by-settle.js';
import { paidEventIds, paidEvents, request, slip } from './contract-payments.js';

/** Reads through the engine's own driver. */
export interface PaymentProbe {
  balance(accountId: string): Promise<{ credits: number; usage: number } | null>;
  /** The request's stored status and the verification that paid it; null for no such request. */
  storedPayment(requestId: string): Promise<{ status: string; paidVerificationId: string | null } | null>;
  /** The payment verdict stored with a verification record (nulls when it has none); null for no such record. */
  storedVerdict(verificationId: string): Promise<{ requestId: string | null; status: string | null; reason: string | null } | null>;
}

interface Fixtures {
  store: () => Store;
  probe: () => PaymentProbe;
  account: (credits?: number) => Promise<string>;
  concurrency: CaseFn;
}

const MINUTE = 60_000;
const endpointId = 'whe_resolve';

export function paymentResolveContract(f: Fixtures): void {
  /** A charged verification of the account whose slip paid nothing (its record says why, when it was sent for a request). */
  async function charged(accountId: string, over: Partial<PayingSlip> = {}, refusedFor?: PaymentRequest): Promise<PayingSlip> {
    const paying = slip(over);
    await settleWithVerdict(f.store(), accountId, paying, refusedFor ? { requestId: refusedFor.id, status: refusedFor.status, reason: 'amount_mismatch' } : undefined);
    return paying;
  }
  const resolve = (pr: PaymentRequest, paying: PayingSlip, at = new Date()) => f.store().resolvePaymentRequest({ request: pr, slip: paying, at, deliveries: paidEvents(endpointId, pr) });

  describe('staff resolution of payment requests', () => {
    it('pays a pending request with a charged slip, keeps the verdict on its record, writes one event and moves no credit; the same pair again writes nothing', async () => {
      const accountId = await f.account(100);
      const pr = request(accountId);
      await f.store().createPaymentRequest(pr);
      const paying = await charged(accountId, { amount: 12_000 }, pr);
      expect(await f.probe().storedVerdict(paying.verificationId)).toEqual({ requestId: pr.id, status: 'pending', reason: 'amount_mismatch' });
      const before = await f.probe().balance(accountId);
      const at = new Date();
      expect(await resolve(pr, paying, at)).toEqual({ status: 'paid', request: { ...pr, status: 'paid', paidAt: at, paidBy: paying } });
      expect(await f.probe().storedPayment(pr.id)).toEqual({ status: 'paid', paidVerificationId: paying.verificationId });
      expect(await f.probe().storedVerdict(paying.verificationId)).toEqual({ requestId: pr.id, status: 'paid', reason: null });
      expect(await f.probe().balance(accountId)).toEqual(before);
      expect(await paidEventIds(f.store(), accountId)).toHaveLength(1);
      const again = await resolve(pr, paying);
      expect(again).toMatchObject({ status: 'paid', request: { paidAt: at, paidBy: paying } });
      expect(await paidEventIds(f.store(), accountId)).toHaveLength(1);
    });

    it('pays a request marked expired whatever the transfer time (a person looked)', async () => {
      const accountId = await f.account(100);
      const now = new Date();
      const pr = request(accountId, { createdAt: new Date(now.getTime() - 40 * MINUTE), expiresAt: new Date(now.getTime() - 10 * MINUTE) });
      await f.store().createPaymentRequest(pr);
      await f.store().expirePaymentRequests([pr.id], now, () => []);
      const expired = (await f.store().getPaymentRequest(pr.id))!;
      const late = await charged(accountId, { transferredAt: new Date(now.getTime() - MINUTE) });
      // A customer's settle refuses the late transfer; staff may attach it.
      expect(await resolve(expired, late, now)).toMatchObject({ status: 'paid', request: { status: 'paid', paidBy: late } });
      expect(await f.probe().storedPayment(pr.id)).toEqual({ status: 'paid', paidVerificationId: late.verificationId });
      expect(await f.probe().storedVerdict(late.verificationId)).toEqual({ requestId: pr.id, status: 'paid', reason: null });
    });

    it('refuses a request paid by another slip or cancelled, and a slip that paid another request; nothing changes', async () => {
      const accountId = await f.account(100);
      const paid = request(accountId);
      const cancelled = request(accountId);
      const open = request(accountId);
      for (const p of [paid, cancelled, open]) await f.store().createPaymentRequest(p);
      const customer = slip();
      await payBySettle(f.store(), paid, customer, new Date());
      await f.store().cancelPaymentRequest(cancelled.id, new Date());
      const loose = await charged(accountId);
      expect(await resolve(paid, loose)).toMatchObject({ status: 'not_pending', request: { status: 'paid', paidBy: customer } });
      expect(await resolve(cancelled, loose)).toMatchObject({ status: 'not_pending', request: { status: 'cancelled' } });
      expect(await f.probe().storedVerdict(loose.verificationId)).toEqual({ requestId: null, status: null, reason: null });
      // The customer's slip paid `paid`: it cannot pay `open` too.
      const customerAgain = { ...customer, verificationId: loose.verificationId };
      expect(await resolve(open, customerAgain)).toEqual({ status: 'slip_used', otherRequestId: paid.id });
      expect(await f.probe().storedPayment(open.id)).toEqual({ status: 'pending', paidVerificationId: null });
      expect(await f.probe().storedPayment(cancelled.id)).toEqual({ status: 'cancelled', paidVerificationId: null });
      expect(await paidEventIds(f.store(), accountId)).toHaveLength(0);
    });

    f.concurrency("resolutions racing each other and a customer's slip: exactly one pays, with one event", async () => {
      const accountId = await f.account(100);
      const pr = request(accountId);
      await f.store().createPaymentRequest(pr);
      const staff = [await charged(accountId), await charged(accountId), await charged(accountId)];
      const customer = slip();
      const results = await Promise.all([
        payBySettle(f.store(), pr, customer, new Date(), paidEvents(endpointId, pr)),
        ...staff.map((s) => resolve(pr, s)),
        // The same pair twice at once: one payment, never two.
        resolve(pr, staff[0]!),
      ]);
      const payers = new Set(results.flatMap((r) => (r?.status === 'paid' ? [r.request.paidBy?.verificationId] : [])));
      expect(payers.size).toBe(1);
      const [payer] = payers;
      expect((await f.probe().storedPayment(pr.id))?.paidVerificationId).toBe(payer);
      expect(await paidEventIds(f.store(), accountId)).toHaveLength(1);
    });
  });
}
