// What the settle's atomic write may pay, the same on every engine: time
// decides by the transfer, not by when expiry ran. A request marked
// `expired` is still paid by a slip transferred inside its window, whenever
// that slip is verified; a transfer after expiresAt never pays.
import type { PayingSlip, PaymentRequest } from './types.js';

/** Whether the slip's transfer came at or before the request's expiry (the bank's time, not the verification's). */
export const transferredInTime = (request: Pick<PaymentRequest, 'expiresAt'>, slip: Pick<PayingSlip, 'transferredAt'>): boolean =>
  slip.transferredAt.getTime() <= request.expiresAt.getTime();

/** Pending, or marked expired while this slip's transfer had come in time. */
export const payableBy = (request: PaymentRequest, slip: PayingSlip): boolean =>
  request.status === 'pending' || (request.status === 'expired' && transferredInTime(request, slip));

/** Staff resolution (resolve.ts): pending or expired, whenever the transfer came; never paid or cancelled. */
export const openToStaff = (request: PaymentRequest): boolean => request.status === 'pending' || request.status === 'expired';

/** Whether the request is paid by this very slip (its transaction id at its sending bank): a retry, or a resolution again. */
export const paidBySameSlip = (request: PaymentRequest, slip: Pick<PayingSlip, 'transactionId' | 'sendingBank'>): boolean =>
  request.status === 'paid' && request.paidBy?.transactionId === slip.transactionId && request.paidBy.sendingBank === slip.sendingBank;
