// Names for codes the API returns: Thai bank codes and error kinds, in the page's language.
import { t } from './i18n/index.js';

/** The bank codes the audit log's filter offers. */
export const BANK_CODES = ['002', '004', '006', '011', '014', '017', '022', '024', '025', '030', '033', '034', '066', '067', '069', '070', '071', '073'] as const;

export function bankLabel(code: string): string {
  const name = t().banks[code];
  return name ? `${code} ${name}` : code;
}

export const ERROR_KINDS = [
  'INVALID_QR',
  'SLIP_NOT_FOUND',
  'UPSTREAM_ERROR',
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_MISMATCH',
  'INSUFFICIENT_FUND',
  'INVALID_API_KEY',
  'MISSING_API_KEY',
  'USER_NOT_FOUND',
  'IP_NOT_ALLOWED',
  'INTERRUPTED',
  'UNREADABLE_IMAGE',
  'AUTH_RATE_LIMITED',
  'RECEIVER_NOT_REGISTERED',
] as const;

/** "SLIP_NOT_FOUND" → "slip not found" / "ไม่พบสลิป". */
export function errorKindLabel(kind: string): string {
  return t().errorKinds[kind] ?? kind.toLowerCase().replaceAll('_', ' ');
}
