// A payment request's own target (types.ts, PaymentTarget): copied from its
// receiver when it is made, and what paying and LINE matching compare a slip
// with, so `receivers remove` and `add` (to fix a name) orphan no order.
import { matchReceivers } from '../receivers/policy.js';
import type { Receiver, VerifiedSlip } from '../types.js';
import type { PaymentRequest, PaymentTarget } from './types.js';

export function targetOf(r: Receiver): PaymentTarget {
  return { kind: r.kind, bankCode: r.bankCode, number: r.number, proxyType: r.proxyType, nameTh: r.nameTh, nameEn: r.nameEn };
}

/**
 * The request's target as the receiver rules read one (receivers/policy.ts),
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

/**
 * Whether the slip paid the request's target: as it was when the request was
 * made, or as the account registers the same place now. A receiver removed
 * and added again to fix its name speaks for its orders made under the old
 * spelling; a look-alike still has to pass the receiver rules against one of
 * them. `registered` (the account's receivers) is read only when the request's
 * own target does not match, so the usual slip costs no read.
 */
export async function paidToTarget(request: PaymentRequest, slip: VerifiedSlip, registered: () => Promise<readonly Receiver[]>): Promise<boolean> {
  const own = targetReceiver(request);
  if (!own) return false;
  if (matchReceivers(slip, [own], 'report').passed) return true;
  const target = request.target!;
  const now = (await registered()).filter((r) => r.active && samePlace(targetOf(r), target));
  return now.length > 0 && matchReceivers(slip, now, 'report').passed;
}
