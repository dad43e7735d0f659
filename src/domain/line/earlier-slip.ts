// A slip sent in a LINE chat that the account verified before is answered
// from the record, before any credit is held or the bank is asked
// (docs/line.md#a-slip-sent-again): the customer who sent it through this
// channel reads its result again, free; anyone else (another LINE user, or
// the slip used elsewhere) reads only that it was sent before, and the staff
// are told, whether or not the channel's checks are on: a slip verified once
// is never verified (and charged) again as a fresh payment in a chat, where
// anyone can add a shop's LINE account and send a picture it was shown.
//
// A slip still being re-checked (its bank did not know it yet) is answered
// from its open re-check the same way: the customer whose re-check it is
// reads "still checking, we will tell you" (one re-check, one push, no
// second bank call); anyone else, or the slip kept by another way in (the
// API, a checkout page), reads "sent before" and the staff are told.
import type { Store } from '../ports/store.js';
import type { Recheck } from '../rechecks/types.js';
import type { SlipRef } from '../verify/slip-qr.js';
import type { VerifyTransactionRecord } from '../types.js';
import type { LineReply } from './replies.js';
import type { LineChannel } from './types.js';

/** The account's verifications of one slip read to find this customer's (a slip is rarely verified more than a few times). */
const SAME_SLIP_READ = 50;

export type EarlierSlip =
  /** This customer sent it through this channel before: their record, newest first. */
  | { kind: 'own'; record: VerifyTransactionRecord }
  /** Verified before for someone else (or its record no longer says who): not answered as a fresh payment. */
  | { kind: 'other'; record: VerifyTransactionRecord };

export async function earlierSlip(store: Store, channel: LineChannel, userId: string, slip: SlipRef): Promise<EarlierSlip | null> {
  const page = await store.listVerifyTransactions({ accountId: channel.accountId, transactionId: slip.transRef, sendingBank: slip.sendingBank, limit: SAME_SLIP_READ });
  const keyId = `line:${channel.channelId}`;
  // Redacted by retention or erasure: the user and the names are gone, so it cannot be told as theirs.
  const own = page.items.find((r) => r.keyId === keyId && r.lineUserId === userId && !r.redactedAt);
  if (own) return { kind: 'own', record: own };
  // Checks off or on: the checks decide what a fresh verification reports, not whether a used slip is fresh.
  const other = page.items[0];
  return other ? { kind: 'other', record: other } : null;
}

/** The result of the customer's own earlier verification, again; the order it paid named by its reference. */
export async function resentReply(store: Store, record: VerifyTransactionRecord): Promise<LineReply> {
  const paid = record.payment?.status === 'paid' ? await store.getPaymentRequest(record.payment.requestId).catch(() => null) : null;
  return { kind: 'resent', slip: record.response, ...(paid ? { order: paid.reference } : {}) };
}

export type PendingSlip =
  /** This customer's slip, kept from this channel: the result is pushed to them when the re-check ends. */
  | { kind: 'own'; recheck: Recheck }
  /** Kept for someone else (another LINE user, another channel, the API): not answered as a fresh payment. */
  | { kind: 'other'; recheck: Recheck };

/** An account keeps a slip for re-checks once, unless sends raced: a few is plenty to find this customer's. */
const SAME_SLIP_OPEN_READ = 10;

/** The slip's open re-check on this account, this customer's first; null when it is being re-checked for no one. */
export async function pendingSlip(store: Store, channel: LineChannel, userId: string, slip: SlipRef): Promise<PendingSlip | null> {
  const open = await store.openRechecks({ accountId: channel.accountId, slip, limit: SAME_SLIP_OPEN_READ });
  const own = open.find((r) => r.keyId === `line:${channel.channelId}` && r.lineChannelId === channel.channelId && r.lineUserId === userId);
  if (own) return { kind: 'own', recheck: own };
  return open[0] ? { kind: 'other', recheck: open[0] } : null;
}
