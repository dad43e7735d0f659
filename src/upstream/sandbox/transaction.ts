// Deterministic fake transactions for the sandbox network and the fake banks
// in tests: the same transRef always yields the same transaction.
import { createHash } from 'node:crypto';
import type { RawSlipData } from '../../domain/types.js';

/** transRef prefix of sandbox QRs that carry their amount: SBX + 10-digit satang + outcome letter. */
const SANDBOX_PREFIX = 'SBX';

export type SandboxOutcome = 'success' | 'not-found' | 'error' | 'timeout';

const OUTCOME_LETTER: Record<SandboxOutcome, string> = {
  success: 'S',
  'not-found': 'N',
  error: 'E',
  timeout: 'T',
};

/** Builds a sandbox transRef; the random tail keeps every generated QR distinct. */
export function sandboxTransRef(amountSatang: number, outcome: SandboxOutcome, tail: string): string {
  return `${SANDBOX_PREFIX}${String(amountSatang).padStart(10, '0')}${OUTCOME_LETTER[outcome]}${tail}`;
}

/** Outcome a developer asked for in the transRef; plain real-world refs succeed. */
export function sandboxOutcome(transRef: string): SandboxOutcome {
  if (!transRef.startsWith(SANDBOX_PREFIX)) return 'success';
  const letter = transRef.charAt(SANDBOX_PREFIX.length + 10);
  const found = (Object.keys(OUTCOME_LETTER) as SandboxOutcome[]).find((o) => OUTCOME_LETTER[o] === letter);
  return found ?? 'success';
}

const SENDERS = [
  { th: 'นาย สมชาย ใจดี', en: 'MR. SOMCHAI JAIDEE' },
  { th: 'นางสาว สุดา รักไทย', en: 'MISS SUDA RAKTHAI' },
  { th: 'นาง มาลี ศรีสุข', en: 'MRS. MALEE SRISUK' },
];
const RECEIVERS = [
  { th: 'บจก. ร้านกาแฟ ดีดี', en: 'DEEDEE COFFEE CO., LTD.' },
  { th: 'นาย ประยุทธ์ ขายดี', en: 'MR. PRAYUT KHAIDEE' },
];

/**
 * The transaction the sandbox reports for a slip, in the shape of the network's payload (docs/contract.md#responses, rawData)
 * (amount as text). Time is derived from the hash, within the last 30 days of
 * `now`, so slips look recent.
 */
export function sandboxTransaction(sendingBank: string, transRef: string, now = new Date()): RawSlipData {
  const h = createHash('sha256').update(`${sendingBank}:${transRef}`).digest();
  const embedded = transRef.startsWith(SANDBOX_PREFIX) ? Number(transRef.slice(3, 13)) : NaN;
  const satang = Number.isSafeInteger(embedded) ? embedded : 100 + (h.readUInt32BE(0) % 500_000);
  const secondsAgo = h.readUInt32BE(4) % (30 * 86_400);
  const at = new Date(Math.floor(now.getTime() / 86_400_000) * 86_400_000 - secondsAgo * 1000);
  const bkk = new Date(at.getTime() + 7 * 3_600_000).toISOString();
  const sender = SENDERS[h.readUInt8(8) % SENDERS.length]!;
  const receiver = RECEIVERS[h.readUInt8(9) % RECEIVERS.length]!;
  const digits = String(h.readUInt32BE(10)).padStart(10, '0');
  const receiverByProxy = h.readUInt8(14) % 2 === 0;
  return {
    language: 'TH',
    transRef,
    sendingBank,
    receivingBank: receiverByProxy ? '004' : '014',
    transDate: bkk.slice(0, 10).replaceAll('-', ''),
    transTime: bkk.slice(11, 19),
    sender: {
      displayName: sender.th,
      name: sender.en,
      proxy: '',
      account: { type: 'BANKAC', value: `xxx-x-x${digits.slice(0, 4)}-x` },
    },
    receiver: receiverByProxy
      ? {
          displayName: receiver.th,
          name: receiver.en,
          proxy: { type: 'NATID', value: `x-xxxx-xxxx${digits.slice(4, 7)}-xx-x` },
          account: '',
        }
      : {
          displayName: receiver.th,
          name: receiver.en,
          proxy: '',
          account: { type: 'BANKAC', value: `xxx-x-x${digits.slice(6, 10)}-x` },
        },
    amount: (satang / 100).toFixed(2),
    paidLocalAmount: (satang / 100).toFixed(2),
    paidLocalCurrency: '764',
    countryCode: 'TH',
    transFeeAmount: '0.00',
    ref1: '',
    ref2: '',
    ref3: '',
    toMerchantId: '',
  };
}
