// Builds slip QRs that the sandbox accepts (npx slipgate sandbox qr).
import { randomBytes } from 'node:crypto';
import { withCrcTag } from 'promptparse';
import { encodeSandboxDetails, type SandboxDetails } from './sandbox-details.js';
import { DETAILS_ROOM, DETAILS_TAIL, sandboxTransRef, type SandboxOutcome } from './transaction.js';

const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function tlv(id: string, value: string): string {
  return id + String(value.length).padStart(2, '0') + value;
}

/** A slip QR payload for any bank code and transRef, with a correct CRC. */
export function slipQr(sendingBank: string, transRef: string): string {
  const head = tlv('00', tlv('00', '000001') + tlv('01', sendingBank) + tlv('02', transRef)) + tlv('51', 'TH');
  return withCrcTag(head, '91', true);
}

interface SandboxQrOptions {
  bank?: string;
  amount?: number;
  outcome?: SandboxOutcome;
  details?: SandboxDetails;
  /** With outcome `late`: the sandbox answers "not found" until this many seconds after `now`. */
  afterSeconds?: number;
  /** When the QR is made (ms); defaults to the clock. */
  now?: number;
}

export function sandboxQr(opts: SandboxQrOptions = {}): string {
  const satang = Math.round((opts.amount ?? 100) * 100);
  if (!Number.isSafeInteger(satang) || satang <= 0 || satang >= 1e10) throw new Error('amount must be between 0.01 and 99,999,999.99');
  const late = opts.outcome === 'late';
  if (late !== (opts.afterSeconds !== undefined)) throw new Error('afterSeconds goes with the late outcome, and only with it');
  // The time travels in the slip itself: the sandbox keeps no state.
  const publishedAt = late ? { publishedAt: new Date((opts.now ?? Date.now()) + opts.afterSeconds! * 1000) } : {};
  const details = encodeSandboxDetails({ ...opts.details, ...publishedAt }, DETAILS_ROOM);
  const tail = randomTail(details === '' ? 11 : DETAILS_TAIL) + details;
  return slipQr(opts.bank ?? '004', sandboxTransRef(satang, opts.outcome ?? 'success', tail));
}

function randomTail(length: number): string {
  return Array.from(randomBytes(length), (b) => ALPHANUM[b % ALPHANUM.length]).join('');
}
