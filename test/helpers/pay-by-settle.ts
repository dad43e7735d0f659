// Paying a payment request in a store test, as the verify path does it: a
// credit held for the slip's verification, then settled with the payment in
// the settle's own write (VerifyPathStore.settleHold).
import { randomUUID } from 'node:crypto';
import type { SettlePayment, Store } from '../../src/domain/ports/store.js';
import type { PayResult, PayingSlip, PaymentRecord, PaymentRequest } from '../../src/domain/payments/types.js';
import type { VerifyTransactionRecord } from '../../src/domain/types.js';
import type { NewWebhookDelivery } from '../../src/domain/webhooks/types.js';

/** Gives the account `credits` to pay with (a top-up through the ledger). */
export async function fundAccount(store: Store, accountId: string, credits: number): Promise<void> {
  const entry = { id: `led_${randomUUID().replaceAll('-', '')}`, accountId, kind: 'top_up' as const, delta: credits, reason: 'test', actor: 'test', idempotencyKey: null, createdAt: new Date() };
  await store.applyLedgerEntry(entry);
}

/** The success record of the slip's verification (its id is the hold's: the slip's verificationId). */
export function paidRecord(accountId: string, paying: PayingSlip): VerifyTransactionRecord {
  return {
    id: paying.verificationId,
    accountId,
    keyId: 'key_test',
    requestId: paying.verificationId,
    qrcode: 'qr',
    transactionId: paying.transactionId,
    amount: paying.amount / 100,
    sendingBank: paying.sendingBank,
    receivingBank: '014',
    upstream: 'sandbox',
    latencyMs: 1,
    response: { rawData: {} } as unknown as VerifyTransactionRecord['response'],
    createdAt: new Date(),
  };
}

/** Holds a credit for the slip's verification, then settles it paying `request`; the account must have a credit. */
export async function payBySettle(store: Store, request: PaymentRequest, paying: PayingSlip, at = new Date(), deliveries: readonly NewWebhookDelivery[] = []): Promise<PayResult | undefined> {
  const held = await store.holdCredit({ id: paying.verificationId, accountId: request.accountId, keyId: 'key_test', createdAt: new Date(), instanceId: null });
  if (held.status !== 'held') throw new Error(`no credit held to pay with: ${held.status}`);
  const payment: SettlePayment = { request, slip: paying, at, deliveries };
  return store.settleHold(paidRecord(request.accountId, paying), [], payment);
}

/** A charged verification whose record carries the verdict the domain decided alone (no payment to write), or none. */
export async function settleWithVerdict(store: Store, accountId: string, paying: PayingSlip, payment: PaymentRecord | undefined): Promise<void> {
  await fundAccount(store, accountId, 1);
  const held = await store.holdCredit({ id: paying.verificationId, accountId, keyId: 'key_test', createdAt: new Date(), instanceId: null });
  if (held.status !== 'held') throw new Error(held.status);
  await store.settleHold({ ...paidRecord(accountId, paying), ...(payment ? { payment } : {}) });
}
