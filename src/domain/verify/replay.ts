// The same slip sent again for the request it already paid (a client
// retrying after a timeout) is answered from the record, before any hold:
// `paid`, with the data of the verification that paid it, and no bank
// call, no credit held or charged, no second event. It is the shop's own
// record of its own payment. Recognised by the QR alone: its sending bank
// and transaction reference are what the paying slip was stored under.
import type { Store } from '../ports/store.js';
import type { PaymentRequest } from '../payments/types.js';
import type { SlipRef } from './slip-qr.js';
import type { VerifyTransactionRecord } from '../types.js';

/** The account's verifications of one slip read to find the one that paid (plain verifications of the slip may be newer). */
const SAME_SLIP_READ = 50;

/** The record of the verification through which `slip` paid `request`; null when it did not, or the record no longer holds the answer. */
export async function recordOfPayment(store: Store, request: PaymentRequest, slip: SlipRef): Promise<VerifyTransactionRecord | null> {
  const by = request.paidBy;
  if (request.status !== 'paid' || !by || by.sendingBank !== slip.sendingBank || by.transactionId !== slip.transRef) return null;
  const page = await store.listVerifyTransactions({ accountId: request.accountId, transactionId: slip.transRef, sendingBank: slip.sendingBank, limit: SAME_SLIP_READ });
  const record = page.items.find((r) => r.id === by.verificationId);
  // Redacted by retention: the names the answer showed are gone, so the slip goes to the bank again (told paid, no new event).
  return record && !record.redactedAt ? record : null;
}
