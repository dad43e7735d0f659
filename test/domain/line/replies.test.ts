// What a LINE customer reads: amounts in baht with two decimals, the
// transfer's time in Bangkok, plain words in Thai or English, and never an
// internal code, whatever the outcome.
import { describe, expect, it } from 'vitest';
import { outcomeReply } from '../../../src/domain/line/outcome-reply.js';
import { bangkokTime, baht, replyText, type LineReply } from '../../../src/domain/line/replies.js';
import { ERROR_KINDS, type VerifiedSlip } from '../../../src/domain/types.js';

const slip = { amount: 1234.5, dateTime: '2025-10-05T15:09:59Z', receiverName: 'บจก. ร้านตัวอย่าง', receiverNameEN: 'SAMPLE SHOP CO', receiverBank: 'SCB' } as VerifiedSlip;

describe('LINE replies', () => {
  it('writes baht with two decimals and thousands separators', () => {
    expect([baht(1234.5), baht(0.1), baht(1_000_000)]).toEqual(['฿1,234.50', '฿0.10', '฿1,000,000.00']);
  });

  it("gives the transfer's time in Bangkok (UTC+7), the Thai form in the Buddhist era", () => {
    expect(bangkokTime(slip, 'en')).toBe('5 Oct 2025, 22:09');
    expect(bangkokTime(slip, 'th')).toMatch(/^5 ต\.ค\. 2568 22:09 น\.$/);
  });

  it('says verified with amount, time and receiver, in the channel language', () => {
    expect(replyText({ kind: 'verified', slip }, 'en')).toBe('✅ Slip verified: the transfer is real.\nAmount ฿1,234.50\nTime 5 Oct 2025, 22:09\nPaid to SAMPLE SHOP CO');
    expect(replyText({ kind: 'verified', slip }, 'th')).toContain('ผู้รับ บจก. ร้านตัวอย่าง');
    expect(replyText({ kind: 'verified', slip, order: 'INV-7' }, 'en')).toContain('Paid order INV-7');
  });

  it('maps every failure kind to plain words with no internal code in either language', () => {
    const kinds = new Set<string>();
    for (const reason of ERROR_KINDS) {
      const reply: LineReply = outcomeReply({ kind: 'failed', reason, message: 'internal detail 1023', creditsRemaining: 3 }, true);
      kinds.add(reply.kind);
      for (const lang of ['th', 'en'] as const) expect(replyText(reply, lang)).not.toMatch(/\d{4}|internal|credits|_/);
    }
    expect([...kinds].sort()).toEqual(['not_found', 'try_later', 'unreadable']);
    expect(outcomeReply({ kind: 'account_error', error: 'receiver_not_registered', creditsRemaining: 1 }, false).kind).toBe('other_receiver');
    expect(outcomeReply({ kind: 'account_error', error: 'insufficient_fund', creditsRemaining: 0 }, true).kind).toBe('try_later');
  });

  it('says a slip kept for re-checks will be told later, and one the bank never showed, kindly and with no internal code', () => {
    expect(outcomeReply({ kind: 'pending', verificationId: 'req_1', creditsRemaining: 3 }, true)).toEqual({ kind: 'bank_pending' });
    expect(outcomeReply({ kind: 'recheck_limit', message: 'too many', creditsRemaining: 3 }, true)).toEqual({ kind: 'try_later' });
    expect(replyText({ kind: 'bank_pending' }, 'th')).toBe('⏳ ธนาคารยังไม่แสดงรายการโอนนี้ ระบบจะตรวจสอบอีกครั้งและแจ้งผลให้ทราบภายในไม่กี่นาทีค่ะ');
    expect(replyText({ kind: 'unconfirmed' }, 'en')).toBe('❌ The bank still has no record of this transfer. Please check with your bank or contact the shop.');
    expect(replyText({ kind: 'still_checking' }, 'th')).toBe('⏳ ได้รับสลิปนี้แล้วค่ะ ระบบกำลังตรวจสอบกับธนาคารอยู่ และจะแจ้งผลให้ทราบทันทีที่ทราบผลค่ะ');
    expect(replyText({ kind: 'still_checking' }, 'en')).toBe('⏳ We already have this slip and are still checking it with the bank. We will tell you the result as soon as we know it.');
    for (const kind of ['bank_pending', 'still_checking', 'unconfirmed'] as const) for (const lang of ['th', 'en'] as const) expect(replyText({ kind }, lang)).not.toMatch(/\d{4}|internal|credits|_/);
  });

  it('counts the duplicate check only when the channel has checks on', () => {
    const verified = { kind: 'verified', slip, qrcode: 'x', creditsRemaining: 1, checks: { duplicate: { passed: false, seen: true, count: 1, firstVerifiedAt: null } } } as const;
    expect(outcomeReply(verified, true)).toEqual({ kind: 'sent_before' });
    expect(outcomeReply(verified, false).kind).toBe('verified');
  });
});
