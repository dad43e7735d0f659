// Thai bank codes (Bank of Thailand / ITMX) and the short names slips show.
const BANKS: Readonly<Record<string, string>> = {
  '002': 'BBL',
  '004': 'KBANK',
  '006': 'KTB',
  '011': 'TTB',
  '014': 'SCB',
  '017': 'CITI',
  '018': 'SMBC',
  '020': 'SCBT',
  '022': 'CIMBT',
  '024': 'UOBT',
  '025': 'BAY',
  '026': 'MEGA',
  '030': 'GSB',
  '031': 'HSBC',
  '032': 'DB',
  '033': 'GHB',
  '034': 'BAAC',
  '035': 'EXIM',
  '039': 'MHCB',
  '045': 'BNPP',
  '052': 'BOC',
  '066': 'ISBT',
  '067': 'TISCO',
  '069': 'KKP',
  '070': 'ICBCT',
  '071': 'TCD',
  '073': 'LHFG',
  '079': 'ANZ',
  '080': 'SMTB',
  '098': 'SME',
};

/** Short name for a bank code; unknown codes answer with the code itself. */
export function bankShortName(code: string): string {
  return BANKS[code] ?? code;
}

/**
 * Account number lengths (digits) per bank, as their passbooks print them.
 * Most Thai banks use 10; the state banks (GSB, GHB, BAAC) and HSBC 12,
 * Standard Chartered 11. Codes not listed here take no bank account.
 */
const ACCOUNT_LENGTHS: Readonly<Record<string, readonly number[]>> = {
  ...Object.fromEntries(Object.keys(BANKS).map((code) => [code, [10]])),
  '020': [11],
  '030': [12],
  '031': [12],
  '033': [12],
  '034': [12],
};

export function isKnownBank(code: string): boolean {
  return Object.hasOwn(BANKS, code);
}

/** The lengths a known bank's account numbers have; empty for an unknown code. */
export function accountLengths(code: string): readonly number[] {
  return ACCOUNT_LENGTHS[code] ?? [];
}
