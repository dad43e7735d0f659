// The checkout page's words, Thai and English (docs/payments.md#checkout-page).
export const LANGS = ['th', 'en'] as const;
export type Lang = (typeof LANGS)[number];

const en = {
  title: 'Pay with PromptPay',
  amount: 'Amount',
  reference: 'Order',
  expiresIn: 'Time left to pay',
  scan: 'Scan this QR with your banking app, or save it and open it from your photos.',
  save: 'Save QR picture',
  upload: 'After paying, upload the slip picture',
  send: 'Check my slip',
  pending: 'Waiting for your payment',
  paid: 'Paid. Thank you!',
  expired: 'This payment has expired. Ask the shop for a new one.',
  cancelled: 'The shop cancelled this payment.',
  verifying: 'We are confirming your transfer with your bank; this page updates by itself.',
  verdict_amount_mismatch: 'This slip is for another amount. Pay exactly the amount shown and upload that slip.',
  verdict_wrong_receiver: 'This slip paid someone else, not this shop.',
  verdict_slip_already_used: 'This slip has already been used for another payment.',
  verdict_already_paid: 'This payment was already paid with another slip.',
  verdict_paid_by_this_slip: 'This payment was already paid with this slip: nothing more to do.',
  verdict_transferred_before_request: 'This slip is from before this payment was made.',
  verdict_expired: 'This slip was paid after the payment expired.',
  verdict_cancelled: 'The shop cancelled this payment.',
  verdict_unreadable: 'We could not read a slip QR code in that picture. Upload the slip picture from your banking app.',
  verdict_not_confirmed: 'The bank did not confirm this slip. Check that it is your slip for this payment.',
  verdict_unconfirmed: 'The bank has no record of this transfer yet. Check with your bank, or upload the slip again.',
  verdict_busy: 'We could not check your slip right now. Try again in a minute.',
  verdict_limit: 'Too many slips were checked for this payment. Contact the shop.',
  verdict_shop: 'The shop cannot check slips right now. Contact the shop.',
  verdict_no_file: 'Choose a picture of your slip first.',
  verdict_too_large: 'That picture is too large. Upload a smaller screenshot of the slip.',
  back: 'Back to the payment',
  switchTo: 'ภาษาไทย',
};

const th: typeof en = {
  title: 'ชำระเงินด้วยพร้อมเพย์',
  amount: 'ยอดชำระ',
  reference: 'คำสั่งซื้อ',
  expiresIn: 'เวลาที่เหลือ',
  scan: 'สแกน QR นี้ด้วยแอปธนาคาร หรือบันทึกรูปแล้วเปิดจากคลังภาพ',
  save: 'บันทึกรูป QR',
  upload: 'ชำระแล้ว อัปโหลดรูปสลิป',
  send: 'ตรวจสอบสลิป',
  pending: 'รอการชำระเงิน',
  paid: 'ชำระเงินแล้ว ขอบคุณค่ะ',
  expired: 'รายการนี้หมดเวลาแล้ว กรุณาขอรายการใหม่จากร้าน',
  cancelled: 'ร้านยกเลิกรายการนี้แล้ว',
  verifying: 'กำลังยืนยันการโอนเงินกับธนาคารของคุณ หน้านี้จะอัปเดตเองค่ะ',
  verdict_amount_mismatch: 'ยอดในสลิปไม่ตรง กรุณาโอนตามยอดที่แสดงแล้วอัปโหลดสลิปนั้น',
  verdict_wrong_receiver: 'สลิปนี้โอนให้ผู้รับอื่น ไม่ใช่ร้านนี้',
  verdict_slip_already_used: 'สลิปนี้ถูกใช้กับรายการอื่นแล้ว',
  verdict_already_paid: 'รายการนี้ชำระด้วยสลิปอื่นแล้ว',
  verdict_paid_by_this_slip: 'รายการนี้ชำระด้วยสลิปนี้แล้ว ไม่ต้องทำอะไรเพิ่ม',
  verdict_transferred_before_request: 'สลิปนี้โอนก่อนที่รายการจะถูกสร้าง',
  verdict_expired: 'สลิปนี้โอนหลังรายการหมดเวลา',
  verdict_cancelled: 'ร้านยกเลิกรายการนี้แล้ว',
  verdict_unreadable: 'อ่าน QR ของสลิปในรูปนี้ไม่ได้ กรุณาอัปโหลดรูปสลิปจากแอปธนาคาร',
  verdict_not_confirmed: 'ธนาคารไม่ยืนยันสลิปนี้ กรุณาตรวจว่าเป็นสลิปของรายการนี้',
  verdict_unconfirmed: 'ธนาคารยังไม่มีข้อมูลการโอนนี้ กรุณาตรวจสอบกับธนาคาร หรืออัปโหลดสลิปอีกครั้งค่ะ',
  verdict_busy: 'ตรวจสอบสลิปไม่ได้ในขณะนี้ กรุณาลองใหม่ในอีกสักครู่',
  verdict_limit: 'ตรวจสลิปของรายการนี้ครบจำนวนแล้ว กรุณาติดต่อร้าน',
  verdict_shop: 'ร้านยังตรวจสลิปไม่ได้ในขณะนี้ กรุณาติดต่อร้าน',
  verdict_no_file: 'กรุณาเลือกรูปสลิปก่อน',
  verdict_too_large: 'รูปใหญ่เกินไป กรุณาอัปโหลดภาพหน้าจอสลิปที่เล็กลง',
  back: 'กลับไปหน้าชำระเงิน',
  switchTo: 'English',
};

export type TextKey = keyof typeof en;
export const TEXTS: Record<Lang, typeof en> = { en, th };

/** ?lang= first (the switch), then Accept-Language's first of th/en, then Thai. */
export function pickLang(query: unknown, acceptLanguage: string | undefined): Lang {
  if (query === 'th' || query === 'en') return query;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.trim().slice(0, 2).toLowerCase();
    if (tag === 'th' || tag === 'en') return tag;
  }
  return 'th';
}
