// A bank answer full of personal data, and every value in it that names a
// person or an account: what the retention and erasure tests seed, then
// look for in what is left.
import type { VerifiedSlip } from '../../src/domain/types.js';

/** Every value of personalSlip() that a redaction must remove. */
export const PERSONAL = ['นาย สมชาย ใ', 'MR. SOMCHAI J', 'xxx-x-x1234-x', 'บจก. ดีดี', 'DEEDEE CO', 'xxx-x-x3109-x', 'x-xxxx-xxxx1-23-4', '0812345678'];

export function personalSlip(transactionId: string, amount: number): VerifiedSlip {
  return {
    amount,
    dateTime: '2025-01-01T10:00:00+07:00',
    timestamp: 1735700400,
    transactionId,
    senderBankAccountNumber: 'xxx-x-x1234-x',
    senderName: 'นาย สมชาย ใ',
    senderNameEN: 'MR. SOMCHAI J',
    senderBank: 'KBANK',
    senderBankCode: '004',
    receiverBankAccountNumber: 'xxx-x-x3109-x',
    receiverName: 'บจก. ดีดี',
    receiverNameEN: 'DEEDEE CO',
    receiverBank: 'SCB',
    receiverBankCode: '014',
    receiverPromptpay: 'x-xxxx-xxxx1-23-4',
    receiverProxyType: 'NATID',
    rawData: { amount: String(amount), transRef: transactionId, sender: { displayName: 'นาย สมชาย ใ', proxy: { type: 'MSISDN', value: '0812345678' } } },
  };
}
