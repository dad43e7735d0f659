// What a person may register as a receiving account, checked where it
// enters (GraphQL, dashboard, CLI all come through ReceiverService): a known
// bank's account number of that bank's length, or a PromptPay target by its
// real format and check digit; names banks could print.
import { accountLengths, bankShortName, isKnownBank } from '../banks.js';
import { InputError } from '../errors.js';
import { nameTokens } from '../checks/names.js';
import type { PromptPayType, Receiver } from '../types.js';

const MAX_RECEIVER_NAME = 120;
const MAX_RECEIVER_LABEL = 80;

export type ReceiverTarget = Pick<Receiver, 'kind' | 'bankCode' | 'number' | 'proxyType'>;

/** `--bank 004 --account 123-4-56789-0`: separators (spaces, dashes) are allowed and dropped. */
export function bankTarget(bankCode: string, account: string): ReceiverTarget {
  const code = bankCode.trim();
  if (!/^\d{3}$/.test(code) || !isKnownBank(code)) throw new InputError(`unknown bank code ${JSON.stringify(bankCode)}: use a 3-digit Thai bank code such as 004`);
  const digits = digitsOf(account, 'account number');
  const lengths = accountLengths(code);
  if (!lengths.includes(digits.length)) {
    throw new InputError(`a ${bankShortName(code)} (${code}) account number has ${lengths.join(' or ')} digits, not ${digits.length}`);
  }
  return { kind: 'bank', bankCode: code, number: digits, proxyType: null };
}

/**
 * A PromptPay target: a mobile number (0…, 66… or +66…, kept as 0 and 9
 * digits), a national or tax ID (13 digits, mod-11 check digit) or an
 * e-wallet ID (15 digits).
 */
export function promptPayTarget(id: string): ReceiverTarget {
  const trimmed = id.trim();
  const plus = trimmed.startsWith('+');
  const digits = digitsOf(plus ? trimmed.slice(1) : trimmed, 'PromptPay ID');
  const target = (proxyType: PromptPayType, number: string): ReceiverTarget => ({ kind: 'promptpay', bankCode: null, number, proxyType });
  if (plus && !digits.startsWith('66')) throw new InputError('a PromptPay mobile number in international form starts with +66');
  if (digits.length === 11 && digits.startsWith('66')) return mobile(`0${digits.slice(2)}`);
  if (plus) throw new InputError('a PromptPay mobile number in international form is +66 and 9 digits');
  if (digits.length === 10) return mobile(digits);
  if (digits.length === 13) {
    if (!thaiIdCheckDigitOk(digits)) throw new InputError('the national or tax ID fails its check digit (the 13th digit): check for a typo');
    return target('NATID', digits);
  }
  if (digits.length === 15) return target('EWALLETID', digits);
  throw new InputError('a PromptPay ID is a mobile number (10 digits), a national or tax ID (13 digits) or an e-wallet ID (15 digits)');

  function mobile(number: string): ReceiverTarget {
    if (!/^0[1-9]\d{8}$/.test(number)) throw new InputError('a PromptPay mobile number has 10 digits and starts with 0 (or +66)');
    return target('MSISDN', number);
  }
}

/** Thai national and tax IDs: the 13th digit is (11 - Σ dᵢ·(14-i) mod 11) mod 10 over the first 12. */
export function thaiIdCheckDigitOk(digits: string): boolean {
  if (!/^\d{13}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(digits[i]) * (13 - i);
  return (11 - (sum % 11)) % 10 === Number(digits[12]);
}

/** A name as a bank prints it; null when absent or blank. */
export function receiverName(value: string | null | undefined, what: string): string | null {
  const name = cleanText(value, what, MAX_RECEIVER_NAME);
  if (name !== null && nameTokens(name).length === 0) throw new InputError(`${what} must contain a name, not only a title or company form`);
  return name;
}

export function receiverLabel(value: string | null | undefined): string | null {
  return cleanText(value, 'label', MAX_RECEIVER_LABEL);
}

function cleanText(value: string | null | undefined, what: string, max: number): string | null {
  if (value === null || value === undefined) return null;
  // Control characters (line breaks, escapes) have no place in a printed name and would forge log lines.
  if (/\p{Cc}/u.test(value)) throw new InputError(`${what} must not contain control characters`);
  const text = value.normalize('NFC').replace(/\s+/g, ' ').trim();
  if (text === '') return null;
  if ([...text].length > max) throw new InputError(`${what} must be at most ${max} characters`);
  return text;
}

function digitsOf(value: string, what: string): string {
  if (!/^[\d\s-]+$/.test(value.trim()) || !/\d/.test(value)) throw new InputError(`${what} must be digits (dashes and spaces allowed)`);
  return value.replace(/[\s-]/g, '');
}
