// Deterministic fake transactions for the sandbox network and the fake banks
// in tests: the same transRef always yields the same transaction.
import { createHash } from 'node:crypto';
import type { RawSlipData } from '../../domain/types.js';
import { decodeSandboxDetails, type SandboxDetails } from './sandbox-details.js';

/** transRef prefix of sandbox QRs that carry their amount: SBX + 10-digit satang + outcome letter. */
const SANDBOX_PREFIX = 'SBX';

/** `late`: a bank that publishes slips late, "not found" until the time the slip's details carry, then a success. */
export type SandboxOutcome = 'success' | 'not-found' | 'error' | 'timeout' | 'late';

const OUTCOME_LETTER: Record<SandboxOutcome, string> = {
  success: 'S',
  'not-found': 'N',
  error: 'E',
  timeout: 'T',
  late: 'L',
};

/** A plain sandbox transRef is this long; a longer one carries details after its random tail. */
const PLAIN_LENGTH = SANDBOX_PREFIX.length + 10 + 1 + 11;
/** Random characters before the details: enough to keep every generated slip distinct. */
export const DETAILS_TAIL = 6;
/** Characters left for the details within a QR's 64-character transRef. */
export const DETAILS_ROOM = 64 - (SANDBOX_PREFIX.length + 10 + 1 + DETAILS_TAIL);

/** Builds a sandbox transRef; the random tail keeps every generated QR distinct. */
export function sandboxTransRef(amountSatang: number, outcome: SandboxOutcome, tail: string): string {
  return `${SANDBOX_PREFIX}${String(amountSatang).padStart(10, '0')}${OUTCOME_LETTER[outcome]}${tail}`;
}

function sandboxDetails(transRef: string): SandboxDetails {
  if (!transRef.startsWith(SANDBOX_PREFIX) || transRef.length <= PLAIN_LENGTH) return {};
  return decodeSandboxDetails(transRef.slice(SANDBOX_PREFIX.length + 10 + 1 + DETAILS_TAIL)) ?? {};
}

/** How banks show a receiver's account: `xxx-x-x3109-x` for 123-3-13109-0. */
function maskAccount(digits: string): string {
  const n = digits.length;
  const masked = 'x'.repeat(n - 5) + digits.slice(n - 5, n - 1) + 'x';
  return n === 10 ? `${masked.slice(0, 3)}-${masked.slice(3, 4)}-${masked.slice(4, 9)}-${masked.slice(9)}` : masked;
}

/** How banks show a PromptPay target: only a few digits before the last one. */
function maskProxy(digits: string): string {
  const n = digits.length;
  return 'x'.repeat(n - 5) + digits.slice(n - 5, n - 1) + 'x';
}

/**
 * What the sandbox (and the simulated banks) answer a slip at `now` (ms): a
 * late slip is not found until its publication time, then a success; one
 * whose time cannot be read counts as published.
 */
export function sandboxAnswer(transRef: string, now: number): Exclude<SandboxOutcome, 'late'> {
  const outcome = sandboxOutcome(transRef);
  if (outcome !== 'late') return outcome;
  const publishedAt = sandboxDetails(transRef).publishedAt;
  return publishedAt !== undefined && now < publishedAt.getTime() ? 'not-found' : 'success';
}

/** Outcome a developer asked for in the transRef; plain real-world refs succeed. */
function sandboxOutcome(transRef: string): SandboxOutcome {
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
 * A pinned name as a bank reports it: `displayName` is the name in the slip's
 * language, `name` the English one. A name with Thai letters has no English
 * form, and a bank with no English name on record leaves that field empty
 * (it never copies Thai there); a Latin name is shown in both.
 */
function pinnedNames(name: string): { th: string; en: string } {
  return { th: name, en: /[\u0E00-\u0E7F]/.test(name) ? '' : name };
}

/**
 * The transaction the sandbox reports for a slip, in the shape of the network's payload (docs/contract.md#responses, rawData)
 * (amount as text). What the slip's reference pins (`sandbox qr --receiver-account …`)
 * is reported as pinned; the rest comes from the hash, the time within the
 * last 30 days of `now`, so slips look recent.
 */
export function sandboxTransaction(sendingBank: string, transRef: string, now = new Date()): RawSlipData {
  const h = createHash('sha256').update(`${sendingBank}:${transRef}`).digest();
  const embedded = transRef.startsWith(SANDBOX_PREFIX) ? Number(transRef.slice(3, 13)) : NaN;
  const satang = Number.isSafeInteger(embedded) ? embedded : 100 + (h.readUInt32BE(0) % 500_000);
  const pinned = sandboxDetails(transRef);
  const secondsAgo = h.readUInt32BE(4) % (30 * 86_400);
  const at = pinned.paidAt ?? new Date(Math.floor(now.getTime() / 86_400_000) * 86_400_000 - secondsAgo * 1000);
  const bkk = new Date(at.getTime() + 7 * 3_600_000).toISOString();
  const sender = pinned.senderName !== undefined ? pinnedNames(pinned.senderName) : SENDERS[h.readUInt8(8) % SENDERS.length]!;
  const receiver = pinned.receiverName !== undefined ? pinnedNames(pinned.receiverName) : RECEIVERS[h.readUInt8(9) % RECEIVERS.length]!;
  const digits = String(h.readUInt32BE(10)).padStart(10, '0');
  const proxy = pinned.receiverProxy ? { type: pinned.receiverProxy.type, value: maskProxy(pinned.receiverProxy.digits) } : { type: 'NATID', value: `x-xxxx-xxxx${digits.slice(4, 7)}-xx-x` };
  const receiverByProxy = pinned.receiverProxy !== undefined || (pinned.receiverAccount === undefined && h.readUInt8(14) % 2 === 0);
  const receiverAccount = pinned.receiverAccount !== undefined ? maskAccount(pinned.receiverAccount) : `xxx-x-x${digits.slice(6, 10)}-x`;
  return {
    language: 'TH',
    transRef,
    sendingBank,
    receivingBank: pinned.receiverBank ?? (receiverByProxy ? '004' : '014'),
    transDate: bkk.slice(0, 10).replaceAll('-', ''),
    transTime: bkk.slice(11, 19),
    sender: {
      displayName: sender.th,
      name: sender.en,
      proxy: '',
      account: { type: 'BANKAC', value: `xxx-x-x${digits.slice(0, 4)}-x` },
    },
    receiver: receiverByProxy
      ? { displayName: receiver.th, name: receiver.en, proxy, account: '' }
      : { displayName: receiver.th, name: receiver.en, proxy: '', account: { type: 'BANKAC', value: receiverAccount } },
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
