// Maps the verification network's transaction (rawData) to the response
// `data` of spec §2.2. rawData itself is passed through untouched.
import { bankShortName } from './banks.js';
import type { RawParty, RawSlipData, VerifiedSlip } from './types.js';

const BANGKOK_OFFSET_MS = 7 * 3_600_000;
const DATE = /^(\d{4})(\d{2})(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})$/;

export class SlipMappingError extends Error {
  override name = 'SlipMappingError';
}

export function mapSlip(raw: RawSlipData): VerifiedSlip {
  const amount = typeof raw.amount === 'number' ? raw.amount : Number(raw.amount);
  if (typeof raw.amount === 'string' && raw.amount.trim() === '') throw new SlipMappingError('amount is empty');
  if (!Number.isFinite(amount)) throw new SlipMappingError('amount is not a number');
  if (typeof raw.transRef !== 'string' || raw.transRef === '') throw new SlipMappingError('transRef is missing');
  const { dateTime, timestamp } = bangkokTime(raw.transDate, raw.transTime);
  const sender = party(raw.sender);
  const receiver = party(raw.receiver);
  const sendingBank = String(raw.sendingBank ?? '');
  const receivingBank = String(raw.receivingBank ?? '');
  return {
    amount,
    dateTime,
    timestamp,
    transactionId: raw.transRef,
    senderBankAccountNumber: valueOf(sender.account),
    senderName: sender.displayName ?? '',
    senderNameEN: sender.name ?? '',
    senderBank: bankShortName(sendingBank),
    senderBankCode: sendingBank,
    receiverBankAccountNumber: valueOf(receiver.account),
    receiverName: receiver.displayName ?? '',
    receiverNameEN: receiver.name ?? '',
    receiverBank: bankShortName(receivingBank),
    receiverBankCode: receivingBank,
    receiverPromptpay: valueOf(receiver.proxy),
    receiverProxyType: typeof receiver.proxy === 'object' ? (receiver.proxy.type ?? '') : '',
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
  if (check.getUTCDate() !== da || check.getUTCHours() !== h || check.getUTCMinutes() !== mi) {
    throw new SlipMappingError('transDate/transTime is not a real time');
  }
  return { dateTime: `${d[1]}-${d[2]}-${d[3]}T${transTime as string}+07:00`, timestamp: utcMs / 1000 };
}

function party(p: RawParty | '' | undefined): RawParty {
  return p && typeof p === 'object' ? p : {};
}

function valueOf(field: RawParty['proxy']): string {
  return field && typeof field === 'object' ? (field.value ?? '') : '';
}
