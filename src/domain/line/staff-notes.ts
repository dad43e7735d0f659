// What the shop's staff read about a slip that needs a person
// (docs/line.md#staff-notifications): unlike the customer's reply, a note
// names the order the slip matched and its amount due, since the staff are
// the shop. It never carries the LINE user id, the secret or the token.
import type { PaymentVerdict } from '../payments/paying.js';
import type { PaymentRefusal } from '../payments/types.js';
import type { SlipRef } from '../verify/slip-qr.js';
import type { VerifiedSlip } from '../types.js';
import type { PaymentMatch } from './payment-match.js';
import { baht, bangkokTime, type LineReply } from './replies.js';
import type { LineLanguage } from './types.js';

export type StaffCase =
  /** Several open orders have the slip's amount: which one it paid is the shop's call. */
  | { kind: 'several'; slip: VerifiedSlip; ref: SlipRef }
  /** The receiver's only open order is due another amount. */
  | { kind: 'amount_differs'; slip: VerifiedSlip; ref: SlipRef; order: string; due: number }
  /** The order it matched could not be paid by it (expired before the transfer, cancelled…). */
  | { kind: 'order_not_paid'; slip: VerifiedSlip; ref: SlipRef; order: string; why: PaymentRefusal }
  /** It paid someone else. */
  | { kind: 'other_receiver'; slip?: VerifiedSlip; ref: SlipRef }
  /** Verified before for someone else (another customer, or elsewhere), or it already paid another order. */
  | { kind: 'sent_before'; slip?: VerifiedSlip; ref: SlipRef }
  /** Re-checked until the deadline, the bank never showed it: the customer was told to check with their bank. */
  | { kind: 'unpublished'; slip?: undefined; ref: SlipRef };

/** The case the staff hear of, from the customer's reply and what the payment rules decided; null: nothing for a person. */
export function staffCase(reply: LineReply, ref: SlipRef, match: PaymentMatch | null, verdict: PaymentVerdict | undefined): StaffCase | null {
  const request = match?.kind === 'one' ? match.request : undefined;
  switch (reply.kind) {
    case 'sent_before':
      return { kind: 'sent_before', ref };
    case 'paid_other_order':
      return { kind: 'sent_before', slip: reply.slip, ref };
    case 'other_receiver':
      return { kind: 'other_receiver', ref, ...(reply.slip ? { slip: reply.slip } : {}) };
    case 'no_order':
      return reply.several ? { kind: 'several', slip: reply.slip, ref } : null;
    case 'amount_differs':
      return request ? { kind: 'amount_differs', slip: reply.slip, ref, order: request.reference, due: request.amount / 100 } : null;
    case 'order_not_paid':
      return request && verdict?.reason ? { kind: 'order_not_paid', slip: reply.slip, ref, order: request.reference, why: verdict.reason } : null;
    default:
      return null;
  }
}

export function staffNoteText(c: StaffCase, lang: LineLanguage): string {
  const th = lang === 'th';
  const slip = c.slip ? `${baht(c.slip.amount)} · ${bangkokTime(c.slip, lang)} · ` : '';
  const facts = `${slip}${th ? 'อ้างอิง' : 'ref'} ${c.ref.transRef}`;
  return `${headline(c, th)}\n${facts}`;
}

function headline(c: StaffCase, th: boolean): string {
  switch (c.kind) {
    case 'several':
      return th ? '⚠️ มีคำสั่งซื้อที่รอชำระยอดนี้หลายรายการ: เลือกคำสั่งซื้อที่สลิปนี้ชำระ' : '⚠️ Several open orders have this amount: choose the one this slip paid';
    case 'amount_differs':
      return th ? `⚠️ ยอดไม่ตรงกับคำสั่งซื้อ ${c.order} (ต้องชำระ ${baht(c.due)})` : `⚠️ Wrong amount for order ${c.order} (due ${baht(c.due)})`;
    case 'order_not_paid':
      return notPaid(c.order, c.why, th);
    case 'other_receiver':
      return th ? '⚠️ สลิปนี้โอนให้ผู้รับอื่น ไม่ใช่ร้านนี้' : '⚠️ This slip paid someone else';
    case 'sent_before':
      return th ? '⚠️ สลิปเดิมถูกส่งซ้ำโดยลูกค้าอื่น หรือเคยใช้แล้ว' : '⚠️ The same slip again, from another customer or used before';
    case 'unpublished':
      return th ? '⚠️ ธนาคารไม่แสดงรายการโอนนี้ภายในเวลาที่ตรวจสอบซ้ำ: สลิปยังไม่ได้รับการยืนยัน' : '⚠️ The bank never showed this transfer while it was re-checked: the slip is unconfirmed';
  }
}

function notPaid(order: string, why: PaymentRefusal, th: boolean): string {
  switch (why) {
    case 'expired':
      return th ? `⚠️ โอนหลังคำสั่งซื้อ ${order} หมดเวลา` : `⚠️ Transferred after order ${order} expired`;
    case 'already_paid':
      return th ? `⚠️ คำสั่งซื้อ ${order} ชำระไปแล้วด้วยสลิปอื่น` : `⚠️ Order ${order} was already paid with another slip`;
    case 'cancelled':
      return th ? `⚠️ คำสั่งซื้อ ${order} ถูกยกเลิกแล้ว` : `⚠️ Order ${order} was cancelled`;
    case 'transferred_before_request':
      return th ? `⚠️ โอนก่อนสร้างคำสั่งซื้อ ${order}` : `⚠️ Transferred before order ${order} was placed`;
    default:
      return th ? `⚠️ สลิปนี้ชำระคำสั่งซื้อ ${order} ไม่ได้` : `⚠️ This slip could not pay order ${order}`;
  }
}
