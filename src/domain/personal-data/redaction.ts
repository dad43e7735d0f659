// What a verification record keeps once its personal data is removed
// (retention after RETENTION_DAYS, or an erasure request). Thailand's PDPA
// asks that personal data be kept no longer than its purpose needs; the
// books, usage, duplicate detection and disputes need only the footprint of
// the transfer: amount, time, banks and the transaction reference. Those
// stay (the record's own columns stay too: account, key, amount, banks,
// reference, upstream, latency, time). Names, account numbers, PromptPay
// proxies, the bank's raw answer and the LINE user id of a slip sent in chat go.
import type { Redact } from '../ports/store.js';
import { slipQrHoldsOnlyReference } from '../verify/slip-qr.js';
import type { VerifiedSlip } from '../types.js';

/** The fields of `data` that identify people: blanked, so the shape stays what readers expect. */
const PERSONAL_FIELDS = [
  'senderBankAccountNumber',
  'senderName',
  'senderNameEN',
  'receiverBankAccountNumber',
  'receiverName',
  'receiverNameEN',
  'receiverPromptpay',
  'receiverProxyType',
] as const satisfies readonly (keyof VerifiedSlip)[];

export const redactPersonalData: Redact = ({ qrcode, response }) => {
  // Records come from the store: tolerate any shape rather than fail a whole batch on one odd row.
  const slip: VerifiedSlip = { ...(response && typeof response === 'object' ? response : ({} as VerifiedSlip)) };
  for (const field of PERSONAL_FIELDS) slip[field] = '';
  slip.rawData = {};
  // A slip's mini QR names only the bank and the reference; text carrying more is dropped whole.
  // The LINE user who sent the slip (source 'line') identifies a person: it goes whole.
  return { qrcode: slipQrHoldsOnlyReference(qrcode) ? qrcode : '', response: slip, lineUserId: null };
};
