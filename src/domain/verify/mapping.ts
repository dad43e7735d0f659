// Maps the verification network's transaction (rawData) to the response
// `data` the caller gets (docs/api.md). rawData itself is passed
// through untouched. Everything the answer states is checked here, once:
// a payload that cannot be answered truthfully is the network's failure.
import { bankShortName } from '../banks.js';
import type { SlipRef } from './slip-qr.js';
import type { RawParty, RawSlipData, VerifiedSlip } from '../types.js';

const BANGKOK_OFFSET_MS = 7 * 3_600_000;
const DATE = /^(\d{4})(\d{2})(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})$/;

export class SlipMappingError extends Error {
  override name = 'SlipMappingError';
}

/**
 * `slip` is the QR's sending bank and the slip's identity (its reference in
 * upper case, slip-qr.ts), which the answer was checked to be about
 * (bank-answer.ts): the response and the records name the slip by them, so
 * a later exact lookup of a parsed QR finds it whatever spelling the bank or
 * the QR used ("004" or "4", upper or lower case).
 */
export function mapSlip(raw: RawSlipData, slip: SlipRef): VerifiedSlip {
  const amount = amountOf(raw.amount);
  if (typeof raw.transRef !== 'string' || raw.transRef === '') throw new SlipMappingError('transRef is missing');
  const { dateTime, timestamp } = bangkokTime(raw.transDate, raw.transTime);
  const sender = party(raw.sender, 'sender');
  const receiver = party(raw.receiver, 'receiver');
  const receivingBank = String(raw.receivingBank ?? '');
  return {
    amount,
    dateTime,
    timestamp,
    transactionId: slip.transRef,
    senderBankAccountNumber: valueOf(sender.account),
    senderName: text(sender.displayName, 'sender.displayName'),
    senderNameEN: text(sender.name, 'sender.name'),
    senderBank: bankShortName(slip.sendingBank),
    senderBankCode: slip.sendingBank,
    receiverBankAccountNumber: valueOf(receiver.account),
    receiverName: text(receiver.displayName, 'receiver.displayName'),
    receiverNameEN: text(receiver.name, 'receiver.name'),
    receiverBank: bankShortName(receivingBank),
    receiverBankCode: receivingBank,
    receiverPromptpay: valueOf(receiver.proxy),
    receiverProxyType: receiver.proxy && typeof receiver.proxy === 'object' ? text(receiver.proxy.type, 'receiver.proxy.type') : '',
    rawData: raw,
  };
}

/** transDate YYYYMMDD + transTime HH:MM:SS, both Bangkok local time. */
export function bangkokTime(transDate: unknown, transTime: unknown): { dateTime: string; timestamp: number } {
  const d = typeof transDate === 'string' ? DATE.exec(transDate) : null;
  const t = typeof transTime === 'string' ? TIME.exec(transTime) : null;
  if (!d || !t) throw new SlipMappingError('transDate/transTime are malformed');
  const [, y, mo, da] = d.map(Number) as [number, number, number, number];
  const [, h, mi, s] = t.map(Number) as [number, number, number, number];
  const utcMs = Date.UTC(y, mo - 1, da, h, mi, s) - BANGKOK_OFFSET_MS;
  const check = new Date(utcMs + BANGKOK_OFFSET_MS);
  // Date.UTC rolls 2025-13-15 over into 2026-01-15: compare every part.
  if (
    check.getUTCFullYear() !== y ||
    check.getUTCMonth() !== mo - 1 ||
    check.getUTCDate() !== da ||
    check.getUTCHours() !== h ||
    check.getUTCMinutes() !== mi ||
    check.getUTCSeconds() !== s
  ) {
    throw new SlipMappingError('transDate/transTime is not a real time');
  }
  return { dateTime: `${d[1]}-${d[2]}-${d[3]}T${transTime as string}+07:00`, timestamp: utcMs / 1000 };
}

const DECIMAL = /^\d+(?:\.\d+)?$/;

/** Baht as a number or as plain decimal text; > 0, at most two decimals (satang). */
function amountOf(value: unknown): number {
  let amount: number;
  if (typeof value === 'number') amount = value;
  else if (typeof value === 'string' && DECIMAL.test(value.trim())) amount = Number(value.trim());
  else throw new SlipMappingError(value === '' || value === undefined || value === null ? 'amount is empty' : 'amount is not a number');
  if (!Number.isFinite(amount)) throw new SlipMappingError('amount is not a number');
  if (amount <= 0) throw new SlipMappingError('amount is not positive');
  const satang = amount * 100;
  if (Math.abs(satang - Math.round(satang)) > 1e-6) throw new SlipMappingError('amount has more than two decimals');
  return amount;
}

/** A party must be there and name someone: a name or a masked account or proxy. */
function party(p: RawParty | '' | undefined, which: 'sender' | 'receiver'): RawParty {
  if (!p || typeof p !== 'object' || Array.isArray(p)) throw new SlipMappingError(`${which} is missing`);
  // A name of the wrong type counts as given here; text() then refuses it by name.
  const named = [p.displayName, p.name].some((v) => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === ''));
  const reachable = [p.account, p.proxy].some((f) => f && typeof f === 'object' && typeof f.value === 'string' && f.value.trim() !== '');
  if (!named && !reachable) throw new SlipMappingError(`${which} is missing`);
  return p;
}

function valueOf(field: RawParty['proxy']): string {
  return field && typeof field === 'object' ? text(field.value, 'account or proxy value') : '';
}

/** The contract's fields are strings: missing is empty, a number is its digits, anything else is a broken answer. */
function text(value: unknown, what: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new SlipMappingError(`${what} is not text`);
}
