// What the customer reads in the chat, in Thai or English: plain words, no
// internal codes, no secrets, nothing of the shop's account or credits.
import type { PaymentRefusal } from '../payments/types.js';
import type { VerifiedSlip } from '../types.js';
import type { LineLanguage } from './types.js';

export type LineReply =
  | { kind: 'verified'; slip: VerifiedSlip; order?: string }
  | { kind: 'duplicate'; slip: VerifiedSlip }
  | { kind: 'other_receiver'; slip?: VerifiedSlip }
  | { kind: 'amount_differs'; slip: VerifiedSlip; expected: number; order?: string }
  /** Payment requests matched: a good slip that matched no open order (or several). */
  | { kind: 'no_order'; slip: VerifiedSlip; several: boolean }
  /** Payment requests matched: the slip paid another order before. */
  | { kind: 'paid_other_order'; slip: VerifiedSlip; order?: string }
  /** Payment requests matched: the order it matched could not be paid by it. */
  | { kind: 'order_not_paid'; slip: VerifiedSlip; order: string; why: Exclude<PaymentRefusal, 'amount_mismatch' | 'slip_already_used'> }
  | { kind: 'not_found' }
  | { kind: 'unreadable' }
  | { kind: 'picture_unavailable' }
  | { kind: 'try_later' }
  | { kind: 'rate_limited' }
  | { kind: 'hint' };

/** ฿ with two decimals and thousands separators: ฿1,234.50. */
export function baht(amount: number): string {
  return `฿${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** The transfer's time in Bangkok (the Thai form uses the Buddhist year, as Thai banks do). */
export function bangkokTime(slip: VerifiedSlip, lang: LineLanguage): string {
  const at = new Date(slip.dateTime);
  if (Number.isNaN(at.getTime())) return slip.dateTime;
  const format = new Intl.DateTimeFormat(lang === 'th' ? 'th-TH' : 'en-GB', { timeZone: 'Asia/Bangkok', dateStyle: 'medium', timeStyle: 'short' });
  return lang === 'th' ? `${format.format(at)} น.` : format.format(at);
}

function receiver(slip: VerifiedSlip, lang: LineLanguage): string {
  const name = (lang === 'th' ? slip.receiverName || slip.receiverNameEN : slip.receiverNameEN || slip.receiverName) || slip.receiverBank;
  return name.trim() || '-';
}

function details(slip: VerifiedSlip, lang: LineLanguage): string[] {
  return lang === 'th'
    ? [`จำนวนเงิน ${baht(slip.amount)}`, `เวลา ${bangkokTime(slip, 'th')}`, `ผู้รับ ${receiver(slip, 'th')}`]
    : [`Amount ${baht(slip.amount)}`, `Time ${bangkokTime(slip, 'en')}`, `Paid to ${receiver(slip, 'en')}`];
}

export function replyText(reply: LineReply, lang: LineLanguage): string {
  const th = lang === 'th';
  switch (reply.kind) {
    case 'verified':
      return [
        th ? '✅ ตรวจสอบสลิปแล้ว: ยอดโอนถูกต้อง' : '✅ Slip verified: the transfer is real.',
        ...details(reply.slip, lang),
        ...(reply.order ? [th ? `ชำระคำสั่งซื้อ ${reply.order}` : `Paid order ${reply.order}`] : []),
      ].join('\n');
    case 'duplicate':
      return [th ? '⚠️ สลิปนี้เคยถูกใช้แล้ว จึงใช้ซ้ำไม่ได้' : '⚠️ This slip has already been used, so it cannot be used again.', ...details(reply.slip, lang)].join('\n');
    case 'other_receiver':
      return [th ? '⚠️ สลิปนี้โอนให้ผู้รับอื่น ไม่ใช่ร้านนี้' : '⚠️ This slip paid someone else, not this shop.', ...(reply.slip ? details(reply.slip, lang) : [])].join('\n');
    case 'amount_differs':
      return [
        th ? `⚠️ ยอดโอนไม่ตรงกับยอดที่ต้องชำระ (${baht(reply.expected)})` : `⚠️ The amount differs from the amount due (${baht(reply.expected)}).`,
        ...details(reply.slip, lang),
        ...(reply.order ? [th ? `คำสั่งซื้อ ${reply.order} ยังไม่ได้ชำระ` : `Order ${reply.order} is not paid.`] : []),
      ].join('\n');
    case 'no_order':
      return [
        th ? '✅ ตรวจสอบสลิปแล้ว: ยอดโอนถูกต้อง' : '✅ Slip verified: the transfer is real.',
        ...details(reply.slip, lang),
        reply.several
          ? th ? 'มีคำสั่งซื้อที่รอชำระยอดนี้หลายรายการ ร้านค้าจะตรวจสอบและยืนยันให้' : 'Several open orders have this amount; the shop will match the payment to yours.'
          : th ? 'ไม่พบคำสั่งซื้อที่รอชำระยอดนี้ ร้านค้าจะตรวจสอบให้' : 'No open order of this amount was found; the shop will check it.',
      ].join('\n');
    case 'paid_other_order':
      return [
        reply.order
          ? th ? `⚠️ สลิปนี้ใช้ชำระคำสั่งซื้อ ${reply.order} ไปแล้ว จึงใช้ซ้ำไม่ได้` : `⚠️ This slip has already paid order ${reply.order}, so it cannot pay another.`
          : th ? '⚠️ สลิปนี้ใช้ชำระคำสั่งซื้ออื่นไปแล้ว จึงใช้ซ้ำไม่ได้' : '⚠️ This slip has already paid another order, so it cannot pay another.',
        ...details(reply.slip, lang),
      ].join('\n');
    case 'order_not_paid':
      return [notPaid(reply.order, reply.why, th), ...details(reply.slip, lang)].join('\n');
    case 'not_found':
      return th ? '❌ ไม่พบรายการโอนนี้ที่ธนาคาร กรุณาตรวจสอบสลิปอีกครั้ง' : '❌ The bank has no record of this transfer. Please check the slip.';
    case 'unreadable':
      return th ? '📷 อ่าน QR บนสลิปไม่ได้ กรุณาส่งรูปสลิปที่ชัดกว่านี้' : '📷 The QR code on the slip could not be read. Please send a clearer picture of the slip.';
    case 'picture_unavailable':
      return th ? '📷 ดาวน์โหลดรูปไม่สำเร็จ กรุณาส่งรูปสลิปอีกครั้ง' : '📷 The picture could not be downloaded. Please send the slip again.';
    case 'try_later':
      return th ? '⏳ ตอนนี้ตรวจสอบสลิปไม่ได้ กรุณาลองใหม่อีกครั้งในภายหลัง ร้านค้าจะได้รับแจ้ง' : '⏳ The slip cannot be checked right now. Please try again later.';
    case 'rate_limited':
      return th ? '🙏 ส่งสลิปถี่เกินไป กรุณารอสักครู่แล้วส่งใหม่' : '🙏 Too many slips at once. Please wait a minute and send it again.';
    case 'hint':
      return th ? 'ส่งรูปสลิปโอนเงิน (หรือข้อความ QR บนสลิป) เพื่อให้ร้านตรวจสอบยอดโอนได้เลยค่ะ' : 'Send a picture of your transfer slip (or the text of its QR code) and it will be checked for the shop.';
  }
}

function notPaid(order: string, why: Extract<LineReply, { kind: 'order_not_paid' }>['why'], th: boolean): string {
  const contact = th ? 'ร้านค้าจะติดต่อกลับ' : 'the shop will contact you.';
  switch (why) {
    case 'expired':
      return th ? `⚠️ คำสั่งซื้อ ${order} หมดเวลาชำระก่อนการโอนนี้ ${contact}` : `⚠️ Order ${order} expired before this transfer; ${contact}`;
    case 'already_paid':
      return th ? `⚠️ คำสั่งซื้อ ${order} ชำระไปแล้วด้วยสลิปอื่น ${contact}` : `⚠️ Order ${order} was already paid with another slip; ${contact}`;
    case 'cancelled':
      return th ? `⚠️ คำสั่งซื้อ ${order} ถูกยกเลิกแล้ว ${contact}` : `⚠️ Order ${order} was cancelled; ${contact}`;
    case 'transferred_before_request':
      return th ? `⚠️ การโอนนี้เกิดขึ้นก่อนสร้างคำสั่งซื้อ ${order} ${contact}` : `⚠️ This transfer was made before order ${order} was placed; ${contact}`;
    case 'wrong_receiver':
      return th ? `⚠️ สลิปนี้ไม่ได้โอนให้ผู้รับของคำสั่งซื้อ ${order} ${contact}` : `⚠️ This slip did not pay the receiver of order ${order}; ${contact}`;
  }
}
