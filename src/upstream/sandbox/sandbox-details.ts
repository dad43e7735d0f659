// What a developer may pin in a sandbox slip besides its amount: the
// receiver's account and name, the sender's name and the time paid. They
// travel inside the transaction reference itself (base62 after the random
// tail), so the sandbox answers the same slip the same way on every server,
// with no state, and a merchant can try the checks before going live.
//
// A QR's transaction reference holds at most 64 letters and digits, so the
// details are packed: names in one byte a character (Thai and ASCII only),
// the account in two digits a byte, the time in whole minutes.

export interface SandboxDetails {
  /** Digits only, 4–16 of them. */
  receiverAccount?: string;
  /** The receiving bank's 3-digit code (default: 014 for an account, 004 behind a PromptPay target). */
  receiverBank?: string;
  /** Paid to a PromptPay target instead of an account: its type and digits (4–16). */
  receiverProxy?: { type: SandboxProxyType; digits: string };
  receiverName?: string;
  senderName?: string;
  paidAt?: Date;
  /** A late slip (`--outcome late`): the bank answers "not found" before this time (whole seconds). */
  publishedAt?: Date;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const FIELD = { receiverAccount: 1, receiverName: 2, senderName: 3, paidAt: 4, receiverBank: 5, receiverProxy: 6, publishedAt: 7 } as const;
/** PromptPay target types as slips name them, by the byte that carries them. */
const PROXY_TYPES = ['MSISDN', 'NATID', 'EWALLETID'] as const;
export type SandboxProxyType = (typeof PROXY_TYPES)[number];
const THAI_FIRST = 0x0e01;
const THAI_LAST = 0x0e5b;
const THAI_BASE = 0x80;
const MAX_NAME = 60;

/** Thrown for details the sandbox reference cannot carry; the CLI shows the message. */
export class SandboxDetailsError extends Error {}

export function encodeSandboxDetails(details: SandboxDetails, room: number): string {
  const bytes: number[] = [];
  if (details.receiverAccount !== undefined) bytes.push(FIELD.receiverAccount, ...packDigits(details.receiverAccount));
  if (details.receiverName !== undefined) bytes.push(FIELD.receiverName, ...packName(details.receiverName, 'receiver name'));
  if (details.senderName !== undefined) bytes.push(FIELD.senderName, ...packName(details.senderName, 'sender name'));
  if (details.paidAt !== undefined) bytes.push(FIELD.paidAt, ...packMinutes(details.paidAt));
  if (details.receiverBank !== undefined) {
    if (!/^\d{3}$/.test(details.receiverBank)) throw new SandboxDetailsError('the receiving bank must be a 3-digit bank code');
    bytes.push(FIELD.receiverBank, 1, Number(details.receiverBank));
  }
  if (details.receiverProxy !== undefined) {
    const [len, ...digits] = packDigits(details.receiverProxy.digits, 'the PromptPay target');
    bytes.push(FIELD.receiverProxy, len! + 1, PROXY_TYPES.indexOf(details.receiverProxy.type), ...digits);
  }
  if (details.publishedAt !== undefined) bytes.push(FIELD.publishedAt, ...packSeconds(details.publishedAt));
  if (bytes.length === 0) return '';
  const text = toBase62([1, ...bytes]); // the leading 1 keeps leading zero bytes
  if (text.length > room) {
    throw new SandboxDetailsError(`these details need ${text.length} characters of the slip reference and only ${room} are free: shorten the names`);
  }
  return text;
}

/** Null when the text is not a packing of ours (a plain sandbox slip, or a real one). */
export function decodeSandboxDetails(text: string): SandboxDetails | null {
  const bytes = fromBase62(text);
  if (bytes === null || bytes[0] !== 1) return null;
  const out: SandboxDetails = {};
  let i = 1;
  try {
    while (i < bytes.length) {
      const field = bytes[i++];
      const len = bytes[i++];
      if (len === undefined || i + len > bytes.length) return null;
      const body = bytes.slice(i, i + len);
      i += len;
      if (field === FIELD.receiverAccount) out.receiverAccount = unpackDigits(body);
      else if (field === FIELD.receiverName) out.receiverName = unpackName(body);
      else if (field === FIELD.senderName) out.senderName = unpackName(body);
      else if (field === FIELD.paidAt) out.paidAt = new Date(unpackUint(body) * 60_000);
      else if (field === FIELD.publishedAt) out.publishedAt = new Date(unpackUint(body) * 1000);
      else if (field === FIELD.receiverBank) out.receiverBank = String(body[0]).padStart(3, '0');
      else if (field === FIELD.receiverProxy) {
        const type = PROXY_TYPES[body[0]!];
        if (type === undefined) return null;
        out.receiverProxy = { type, digits: unpackDigits(body.slice(1)) };
      } else return null;
    }
  } catch {
    return null;
  }
  return out;
}

function packDigits(digits: string, what = 'the receiver account'): number[] {
  if (!/^\d{4,16}$/.test(digits)) throw new SandboxDetailsError(`${what} must have 4 to 16 digits`);
  const padded = digits.length % 2 === 0 ? digits : `${digits}F`;
  const body: number[] = [];
  for (let i = 0; i < padded.length; i += 2) body.push(Number.parseInt(padded.slice(i, i + 2), 16));
  return [body.length, ...body];
}

function unpackDigits(body: number[]): string {
  const hex = body.map((b) => b.toString(16).padStart(2, '0')).join('');
  const digits = hex.endsWith('f') ? hex.slice(0, -1) : hex;
  if (!/^\d+$/.test(digits)) throw new Error('not digits');
  return digits;
}

function packName(name: string, what: string): number[] {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_NAME) throw new SandboxDetailsError(`the ${what} must have 1 to ${MAX_NAME} characters`);
  const body = [...trimmed].map((ch) => {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0x20 && cp <= 0x7e) return cp;
    if (cp >= THAI_FIRST && cp <= THAI_LAST) return THAI_BASE + (cp - 0x0e00);
    throw new SandboxDetailsError(`the ${what} may use Thai letters, ASCII letters, digits, spaces and punctuation only`);
  });
  return [body.length, ...body];
}

function unpackName(body: number[]): string {
  return body.map((b) => String.fromCodePoint(b >= THAI_BASE ? 0x0e00 + (b - THAI_BASE) : b)).join('');
}

function packMinutes(at: Date): number[] {
  return packUint32(Math.floor(at.getTime() / 60_000), 'the payment time is out of range');
}

/** Rounded up: a late slip is never published before the time it was given. */
function packSeconds(at: Date): number[] {
  return packUint32(Math.ceil(at.getTime() / 1000), 'the publication time is out of range');
}

function packUint32(n: number, outOfRange: string): number[] {
  if (!Number.isSafeInteger(n) || n < 0 || n >= 2 ** 32) throw new SandboxDetailsError(outOfRange);
  return [4, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

function unpackUint(body: number[]): number {
  return body.reduce((n, b) => n * 256 + b, 0);
}

function toBase62(bytes: number[]): string {
  let n = bytes.reduce((acc, b) => acc * 256n + BigInt(b), 0n);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)]! + out;
    n /= 62n;
  }
  return out;
}

function fromBase62(text: string): number[] | null {
  let n = 0n;
  for (const ch of text) {
    const d = ALPHABET.indexOf(ch);
    if (d < 0) return null;
    n = n * 62n + BigInt(d);
  }
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  return bytes;
}
