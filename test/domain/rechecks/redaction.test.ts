// What a finished re-check keeps once its personal data is removed: its
// stored text (result, options) read field by field, whatever its shape.
import { describe, expect, it } from 'vitest';
import { redactRecheckPersonalData } from '../../../src/domain/rechecks/redaction.js';
import { slipQr } from '../../../src/upstream/sandbox/sandbox-qr.js';
import { verifiedSlip } from '../slip-fixtures.js';

const qr = slipQr('004', '015278121420BTF05718');
const slip = verifiedSlip({ rawData: { transRef: '015278121420BTF05718', sender: { displayName: 'นาย สมชาย ใ' } } });

describe('redactRecheckPersonalData', () => {
  it("redacts a confirmed re-check's answer as a verification's, blanks the receiver asked for, and keeps the ids and the verdict", () => {
    const result = {
      verificationId: 'req_paid',
      data: slip,
      checks: { receiverName: { passed: false, expected: 'ดีดี คอฟฟี่', actual: ['บจก. ดีดี'] }, amount: { passed: true, expected: 100.38, actual: 100.38 } },
      paymentRequest: { id: 'pr_1', status: 'pending', reason: 'amount_mismatch' },
    };
    const kept = redactRecheckPersonalData({ qrcode: qr, result: JSON.stringify(result), options: JSON.stringify({ receiverName: 'ดีดี คอฟฟี่', amountSatang: 10038 }) });
    expect(kept.qrcode).toBe(qr);
    expect(JSON.parse(kept.result!)).toEqual({
      verificationId: 'req_paid',
      data: { ...slip, senderBankAccountNumber: '', senderName: '', senderNameEN: '', receiverBankAccountNumber: '', receiverName: '', receiverNameEN: '', receiverPromptpay: '', receiverProxyType: '', rawData: {} },
      checks: { receiverName: { passed: false, expected: '', actual: [] }, amount: result.checks.amount },
      paymentRequest: result.paymentRequest,
    });
    expect(JSON.parse(kept.options!)).toEqual({ receiverName: '', amountSatang: 10038 });
  });

  it('keeps what holds nothing personal as it is, and drops QR text and stored text it cannot read', () => {
    // A re-check finished by a crash recovery knows the record's id alone; one not confirmed has no result or options.
    expect(redactRecheckPersonalData({ qrcode: qr, result: '{"verificationId":"req_paid"}', options: null })).toEqual({ qrcode: qr, result: '{"verificationId":"req_paid"}', options: null });
    expect(redactRecheckPersonalData({ qrcode: 'Somchai Jaidee 123-4-56789-0', result: 'not json {', options: '["odd"]' })).toEqual({ qrcode: '', result: null, options: null });
    // Redacting again changes nothing.
    const once = redactRecheckPersonalData({ qrcode: qr, result: JSON.stringify({ verificationId: 'req_paid', data: slip }), options: '{"receiverAccount":"1234"}' });
    expect(redactRecheckPersonalData(once)).toEqual(once);
  });
});
