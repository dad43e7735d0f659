// A payment request's own target (types.ts, PaymentTarget): copied from its
// receiver when it is made, and what paying and LINE matching compare a slip
// with, so `receivers remove` and `add` (to fix a name) orphan no order.
import type { Receiver } from '../types.js';
import type { PaymentRequest, PaymentTarget } from './types.js';

export function targetOf(r: Receiver): PaymentTarget {
  return { kind: r.kind, bankCode: r.bankCode, number: r.number, proxyType: r.proxyType, nameTh: r.nameTh, nameEn: r.nameEn };
}

/**
 * The request's target as the receiver rules read one (receiver-policy.ts),
 * active: the QR named it, whatever became of the receiver since. Null when
 * the request has no target (see PaymentRequest.target).
 */
export function targetReceiver(p: PaymentRequest): Receiver | null {
  if (!p.target) return null;
  return { id: p.receiverId, accountId: p.accountId, ...p.target, label: null, active: true, createdAt: p.createdAt };
}

/** The same place to pay (names aside: fixing a name keeps the target). */
export const samePlace = (a: PaymentTarget, b: PaymentTarget): boolean =>
  a.kind === b.kind && a.bankCode === b.bankCode && a.number === b.number && a.proxyType === b.proxyType;
