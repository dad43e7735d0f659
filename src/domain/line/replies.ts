// What the customer reads in the chat, in Thai or English: plain words, no
// internal codes, no secrets, nothing of the shop's account or credits, and
// nothing but the slip that was sent: never another order, its amount, its
// reference or its id (anyone can add a shop's LINE account and send a slip).
import type { VerifiedSlip } from '../types.js';
import type { LineLanguage } from './types.js';

export type LineReply =
  | { kind: 'verified'; slip: VerifiedSlip; order?: string }
  /** The same slip again from the customer who sent it: its earlier result, from the record (line/earlier-slip.ts). */
  | { kind: 'resent'; slip: VerifiedSlip; order?: string }
  /** The slip was verified before, by someone else or elsewhere: said without any of its details. */
  | { kind: 'sent_before' }
  | { kind: 'other_receiver'; slip?: VerifiedSlip }
  /** Payment requests matched: the only open order of its receiver has another amount (never named to the customer). */
  | { kind: 'amount_differs'; slip: VerifiedSlip }
  /** Payment requests matched: a good slip that matched no open order (or several). */
  | { kind: 'no_order'; slip: VerifiedSlip; several: boolean }
  /** Payment requests matched: the slip paid another order before (never named to the customer). */
  | { kind: 'paid_other_order'; slip: VerifiedSlip }
  /** Payment requests matched: the order it matched could not be paid by it (expired, cancelled…; told to the staff, not the customer). */
  | { kind: 'order_not_paid'; slip: VerifiedSlip }
  | { kind: 'not_found' }
  /** The bank does not show the transfer yet: kept for re-checks, the result pushed later (docs/line.md#a-bank-that-publishes-late). */
  | { kind: 'bank_pending' }
  /** The same slip again while it is re-checked, from the customer who sent it: no second check, the result still pushed once. */
  | { kind: 'still_checking' }
  /** Pushed after re-checks: the bank never showed it before the deadline. */
  | { kind: 'unconfirmed' }
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
    case 'resent':
      return [
        th ? 'ℹ️ ได้รับสลิปนี้แล้ว ผลการตรวจสอบเดิม: ยอดโอนถูกต้อง' : 'ℹ️ This slip was received already; its result again: the transfer is real.',
        ...details(reply.slip, lang),
        ...(reply.order ? [th ? `ชำระคำสั่งซื้อ ${reply.order}` : `Paid order ${reply.order}`] : []),
      ].join('\n');
    case 'sent_before':
      return th ? 'ℹ️ สลิปนี้เคยส่งมาแล้ว ร้านค้าจะตรวจสอบให้' : 'ℹ️ This slip was sent before; the shop will check it.';
    case 'other_receiver':
      return [th ? '⚠️ สลิปนี้โอนให้ผู้รับอื่น ไม่ใช่ร้านนี้' : '⚠️ This slip paid someone else, not this shop.', ...(reply.slip ? details(reply.slip, lang) : [])].join('\n');
    case 'no_order':
      return [
        th ? '✅ ตรวจสอบสลิปแล้ว: ยอดโอนถูกต้อง' : '✅ Slip verified: the transfer is real.',
        ...details(reply.slip, lang),
        reply.several
          ? th ? 'มีคำสั่งซื้อที่รอชำระยอดนี้หลายรายการ ร้านค้าจะตรวจสอบและยืนยันให้' : 'Several open orders have this amount; the shop will match the payment to yours.'
          : th ? 'ไม่พบคำสั่งซื้อที่รอชำระยอดนี้ ร้านค้าจะตรวจสอบให้' : 'No open order of this amount was found; the shop will check it.',
      ].join('\n');
    case 'amount_differs':
    case 'order_not_paid':
      return [
        th ? '✅ ตรวจสอบสลิปแล้ว: ยอดโอนถูกต้อง' : '✅ Slip verified: the transfer is real.',
        ...details(reply.slip, lang),
        th ? 'ร้านค้าจะตรวจสอบว่าสลิปนี้ชำระคำสั่งซื้อใด แล้วติดต่อกลับ' : 'The shop will check which order it pays and contact you.',
      ].join('\n');
    case 'paid_other_order':
      return [th ? '⚠️ สลิปนี้ใช้ชำระคำสั่งซื้ออื่นไปแล้ว จึงใช้ซ้ำไม่ได้' : '⚠️ This slip has already paid another order, so it cannot pay another.', ...details(reply.slip, lang)].join('\n');
    case 'not_found':
      return th ? '❌ ไม่พบรายการโอนนี้ที่ธนาคาร กรุณาตรวจสอบสลิปอีกครั้ง' : '❌ The bank has no record of this transfer. Please check the slip.';
    case 'bank_pending':
      return th
        ? '⏳ ธนาคารยังไม่แสดงรายการโอนนี้ ระบบจะตรวจสอบอีกครั้งและแจ้งผลให้ทราบภายในไม่กี่นาทีค่ะ'
        : '⏳ The bank has not shown this transfer yet. We will check again and tell you in a few minutes.';
    case 'still_checking':
      return th
        ? '⏳ ได้รับสลิปนี้แล้วค่ะ ระบบกำลังตรวจสอบกับธนาคารอยู่ และจะแจ้งผลให้ทราบทันทีที่ทราบผลค่ะ'
        : '⏳ We already have this slip and are still checking it with the bank. We will tell you the result as soon as we know it.';
    case 'unconfirmed':
      return th
        ? '❌ ธนาคารยังไม่มีรายการโอนนี้ กรุณาตรวจสอบกับธนาคารของคุณ หรือติดต่อร้านค้าค่ะ'
        : '❌ The bank still has no record of this transfer. Please check with your bank or contact the shop.';
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
