// What a verification keeps once its personal data is removed.
import { withCrcTag } from 'promptparse';
import { describe, expect, it } from 'vitest';
import { redactPersonalData } from '../../../src/domain/personal-data/redaction.js';
import { parseSlipQr } from '../../../src/domain/verify/slip-qr.js';
import type { VerifiedSlip } from '../../../src/domain/types.js';
import { slipQr } from '../../../src/upstream/sandbox/sandbox-qr.js';
import { verifiedSlip } from '../slip-fixtures.js';

const tlv = (id: string, value: string) => id + String(value.length).padStart(2, '0') + value;

const slip = verifiedSlip({ rawData: { transRef: '015278121420BTF05718', sender: { displayName: 'นาย สมชาย ใ' } } });

describe('redactPersonalData', () => {
  it('keeps amount, time, reference and banks; blanks names, accounts and proxies; drops rawData', () => {
    const qr = slipQr('004', '015278121420BTF05718');
    expect(redactPersonalData({ qrcode: qr, response: slip })).toEqual({
      qrcode: qr,
      response: {
        amount: 100.38,
        dateTime: '2025-10-05T22:09:59+07:00',
        timestamp: 1759676999,
        transactionId: '015278121420BTF05718',
        senderBankAccountNumber: '',
        senderName: '',
        senderNameEN: '',
        senderBank: 'KBANK',
        senderBankCode: '004',
        receiverBankAccountNumber: '',
        receiverName: '',
        receiverNameEN: '',
        receiverBank: 'SCB',
        receiverBankCode: '014',
        receiverPromptpay: '',
        receiverProxyType: '',
        rawData: {},
      },
      // The LINE user of a slip sent in chat goes whole.
      lineUserId: null,
    });
  });

  it('drops QR text that carries more than the bank and the reference, even a valid slip QR', () => {
    // A slip QR with one more tag (62, free text): still verifiable, but it may name someone.
    const head = tlv('00', tlv('00', '000001') + tlv('01', '004') + tlv('02', 'TX12345')) + tlv('51', 'TH') + tlv('62', 'SOMCHAI');
    const extra = withCrcTag(head, '91', true);
    expect(parseSlipQr(extra).ok).toBe(true);
    expect(redactPersonalData({ qrcode: extra, response: slip }).qrcode).toBe('');
    // A sub-tag of 00 beyond bank and reference, and text that is no slip QR at all.
    const sub = withCrcTag(tlv('00', tlv('00', '000001') + tlv('01', '004') + tlv('02', 'TX12345') + tlv('03', 'SOMCHAI')) + tlv('51', 'TH'), '91', true);
    expect(redactPersonalData({ qrcode: sub, response: slip }).qrcode).toBe('');
    expect(redactPersonalData({ qrcode: 'Somchai Jaidee 123-4-56789-0', response: slip }).qrcode).toBe('');
  });

  it('copes with a stored response of another shape instead of failing the batch', () => {
    const odd = redactPersonalData({ qrcode: '', response: null as unknown as VerifiedSlip });
    expect(odd.response).toMatchObject({ senderName: '', rawData: {} });
  });
});
