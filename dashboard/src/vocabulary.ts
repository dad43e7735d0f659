// Names for codes the API returns: Thai bank codes and error kinds.
export const BANKS: Record<string, string> = {
  '002': 'Bangkok Bank',
  '004': 'Kasikornbank',
  '006': 'Krungthai',
  '011': 'TMBThanachart',
  '014': 'SCB',
  '017': 'Citibank',
  '022': 'CIMB Thai',
  '024': 'UOB',
  '025': 'Krungsri',
  '030': 'GSB',
  '033': 'GH Bank',
  '034': 'BAAC',
  '066': 'Islamic Bank',
  '067': 'Tisco',
  '069': 'Kiatnakin Phatra',
  '070': 'ICBC Thai',
  '071': 'Thai Credit',
  '073': 'LH Bank',
};

export function bankLabel(code: string): string {
  const name = BANKS[code];
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
  'INTERRUPTED',
  'UNREADABLE_IMAGE',
] as const;

/** "SLIP_NOT_FOUND" → "slip not found". */
export function errorKindLabel(kind: string): string {
  return kind.toLowerCase().replaceAll('_', ' ');
}
