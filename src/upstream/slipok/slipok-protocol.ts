// SlipOK (slipok.com) slip check API, as the adapter reads it: paths, the
// auth header, codes and their classes. Sources: SlipOK's own documentation
// https://slipok.com/api-documentation/ (changelog) and
// https://slipok.com/api-documentation/check-slip/, and the public SDKs
// github.com/PrakritManStudio/slipok-sdk and github.com/xhayper/node-slipok
// (docs/banks.md#slipok says what is uncertain). The simulator has its own
// reading (simulator/slipok-responder.ts) so that each checks the other.

/** POST {base}/api/line/apikey/{branchId}: one slip; GET …/quota: the package's quota, free. */
export const slipokCheckPath = (branchId: string): string => `/api/line/apikey/${encodeURIComponent(branchId)}`;
export const slipokQuotaPath = (branchId: string): string => `${slipokCheckPath(branchId)}/quota`;

export const SLIPOK_DEFAULT_BASE_URL = 'https://api.slipok.com';

/** The raw key, no "Bearer". */
export const SLIPOK_AUTH_HEADER = 'x-authorization';

/**
 * What slipgate sends: the QR text only. Never `amount` (SlipOK's amount
 * check, 1013) nor `log` (its receiver check 1014 and repeat check 1012):
 * those checks are slipgate's, local and free.
 */
export interface SlipokCheckRequest {
  data: string;
}

/**
 * Every documented error code by what it means to slipgate. `code` comes
 * as a number in most integrations and as text in one SDK (UNCERTAIN):
 * both are read.
 */
export const SLIPOK_CODES = {
  /** No such slip, or not a slip: 1005-1007 are about pictures (not an image, unreadable, no QR), 1008 a QR that is not a payment slip, 1011 expired or no such transaction. */
  notFound: new Set([1005, 1006, 1007, 1008, 1011]),
  /** The bank's data is down for now: "check again in the next 15 minutes (no quota charged)". */
  bankDown: 1009,
  /** A BBL/SCB slip the bank shows only `data.delay` minutes after the transfer. */
  bankDelay: 1010,
  /** The domain cannot serve anyone: unknown branch, key refused, package expired, quota used up, no package. */
  unusable: new Map([
    [1001, 'branch id unknown to SlipOK'],
    [1002, 'API key refused'],
    [1003, 'package expired'],
    [1004, 'quota used up'],
    [1015, 'no package'],
  ]),
  /**
   * Answers that carry the whole slip: 1012 seen before, 1013 amount and
   * 1014 receiver mismatch (SlipOK's own checks, which slipgate never asks
   * for): the slip is what counts, slipgate checks it itself.
   */
  withSlip: new Set([1012, 1013, 1014]),
  /** 1000: no QR sent (slipgate's fault, an upstream error like an unknown code). */
} as const;

export const SLIPOK_BANK_DOWN_RETRY_MS = 15 * 60_000;
/** 1010 without a readable `delay`: BBL and SCB slips show within a few minutes. */
export const SLIPOK_DEFAULT_DELAY_MS = 5 * 60_000;
