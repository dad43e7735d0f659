// EasySlip API v2: paths, codes and wire shapes as the adapter reads them.
// Sources: https://easyslip-document.cl1.easythunder.com/en/v2 (overview),
// …/en/v2/verify/bank, …/en/v2/verify/bank/payload, …/en/v2/verify/bank/image,
// …/en/v2/info, …/en/guide/authentication, …/en/reference/error-codes.
// The simulator (simulator/easyslip-responder.ts) reads the same docs on its
// own, so the two catch each other's mistakes.

export const EASYSLIP_DEFAULT_BASE_URL = 'https://api.easyslip.com';
/** One endpoint for every input: JSON `payload` (QR text, 1-128 chars) or multipart `image`. */
export const EASYSLIP_VERIFY_PATH = '/v2/verify/bank';
export const EASYSLIP_INFO_PATH = '/v2/info';
/** The multipart part of a slip picture (a community snippet sends `file`; the docs say `image`). */
export const EASYSLIP_IMAGE_PART = 'image';

/**
 * Error codes (`error.code`) this domain cannot serve anyone with: key
 * refused or missing, branch or service switched off, IP not allowed, quota
 * used up. USER_BANNED is seen only in community code.
 */
export const EASYSLIP_UNUSABLE_CODES: ReadonlySet<string> = new Set([
  'MISSING_API_KEY',
  'INVALID_API_KEY',
  'BRANCH_INACTIVE',
  'SERVICE_BANNED',
  'SERVICE_DELETED',
  'IP_NOT_ALLOWED',
  'QUOTA_EXCEEDED',
  'USER_BANNED',
]);

/**
 * No such slip: SLIP_NOT_FOUND covers "no QR, a QR that is not a slip, a
 * slip the bank does not know"; VALIDATION_ERROR is also what a malformed
 * payload gets; the picture codes mean the picture holds no readable slip.
 * INVALID_IMAGE and UNSUPPORTED_FILE_TYPE are seen only in community code.
 */
export const EASYSLIP_NOT_FOUND_CODES: ReadonlySet<string> = new Set([
  'SLIP_NOT_FOUND',
  'VALIDATION_ERROR',
  'INVALID_IMAGE_FORMAT',
  'IMAGE_SIZE_TOO_LARGE',
  'INVALID_IMAGE',
  'UNSUPPORTED_FILE_TYPE',
]);

/**
 * The bank publishes the slip later (Bangkok Bank slips may take 1-5 min).
 * Seen only in community code and the official Python SDK's
 * SlipPendingError; its exact code and status are not documented.
 */
export const EASYSLIP_PENDING_CODES: ReadonlySet<string> = new Set(['SLIP_PENDING']);

// Every other code (NOT_FOUND, API_SERVER_ERROR, INTERNAL_SERVER_ERROR, the
// URL-mode codes slipgate never causes, ACCOUNT_NOT_MATCH / AMOUNT_NOT_MATCH
// of checks slipgate never asks for, and any undocumented one) is an
// upstream error.

/*
 * The success answer (HTTP 200), as the docs type it (amounts in baht):
 *   {success: true, message, data: {remark?, isDuplicate, matchedAccount, amountInSlip,
 *     amountInOrder?, isAmountMatched?, rawSlip: {payload, transRef, date (ISO 8601, +07:00),
 *     countryCode, amount: {amount, local: {amount?, currency?}}, fee?, ref1?, ref2?, ref3?,
 *     sender: {bank: {id, name, short}, account: {name: {th, en}, bank?: {type, account},
 *     proxy?: {type, account}}}, receiver: {…the same…, merchantId?}}}}
 * The masked value of an account or proxy is named `account`, not `value`.
 * An error: {success: false, error: {code, message}} with a 4xx/5xx status.
 */
