// The transfer the domain tests start from: 100.38 baht from KBank to SCB,
// as the bank's answer (the shape a real one has) and as slipgate's mapped
// slip. Each test overrides what it is about.
import type { RawSlipData, VerifiedSlip } from '../../src/domain/types.js';

/** The slip QR's own reference and sending bank, which the answer names. */
export const SLIP_REF = { transRef: '015278121420BTF05718', sendingBank: '004' };

/** The bank's answer; `over` may hold values a real bank should never send (the answer check's cases). */
export const rawSlipData = (over: Record<string, unknown> = {}): RawSlipData =>
  ({
    language: 'TH',
    transRef: SLIP_REF.transRef,
    sendingBank: SLIP_REF.sendingBank,
    receivingBank: '014',
    transDate: '20251005',
    transTime: '22:09:59',
    sender: { displayName: 'นาย สมชาย ใ', name: 'MR. SOMCHAI J', proxy: '', account: { type: 'BANKAC', value: 'xxx-x-x1234-x' } },
    receiver: { displayName: 'บจก. ดีดี', name: 'DEEDEE CO', proxy: { type: 'NATID', value: 'x-xxxx-xxxx1-23-4' }, account: '' },
    amount: '100.38',
    countryCode: 'TH',
    ...over,
  }) as RawSlipData;

/** The same transfer as slipgate answers it. */
export const verifiedSlip = (over: Partial<VerifiedSlip> = {}): VerifiedSlip => ({
  amount: 100.38,
  dateTime: '2025-10-05T22:09:59+07:00',
  timestamp: 1759676999,
  transactionId: SLIP_REF.transRef,
  senderBankAccountNumber: 'xxx-x-x1234-x',
  senderName: 'นาย สมชาย ใ',
  senderNameEN: 'MR. SOMCHAI J',
  senderBank: 'KBANK',
  senderBankCode: '004',
  receiverBankAccountNumber: '',
  receiverName: 'บจก. ดีดี',
  receiverNameEN: 'DEEDEE CO',
  receiverBank: 'SCB',
  receiverBankCode: '014',
  receiverPromptpay: 'x-xxxx-xxxx1-23-4',
  receiverProxyType: 'NATID',
  rawData: {},
  ...over,
});
