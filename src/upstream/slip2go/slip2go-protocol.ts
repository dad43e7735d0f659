// Slip2Go (doc v1.2, 07-05-2025): paths and result codes as the adapter
// reads them. Sources: "Slip2Go API Documentation v1.2" as copied in the
// public repositories sahaphakhun/pu-star-site (slip2go.md) and
// tkhongsap/line-lender-app-poc (docs/Slip2Go+API+Documentation.md), and the
// Thai portal text in anucha1993/crm-backend (slip2go.md). The simulator
// (simulator/slip2go-responder.ts) reads the same docs on its own.

export const SLIP2GO_DEFAULT_BASE_URL = 'https://connect.slip2go.com/api';
/** JSON `{"payload": {"qrCode": <QR text>}}`; slipgate sends no checkCondition. */
export const SLIP2GO_VERIFY_PATH = '/verify-slip/qr-code/info';
/** multipart: the picture as part `file` (and an optional `payload` part of conditions, never sent). */
export const SLIP2GO_IMAGE_PATH = '/verify-slip/qr-image/info';
export const SLIP2GO_IMAGE_PART = 'file';
export const SLIP2GO_INFO_PATH = '/account/info';

/**
 * `code` is a string of six digits, sent with HTTP 200 for every result and
 * with 4xx/5xx for errors (one integration claims always 200: the code
 * decides, not the status).
 *
 * The slip was found: 200000 (no conditions sent, slipgate's case); 200200
 * and 2004xx answer conditions slipgate never sends, but carry the slip too.
 */
export const SLIP2GO_FOUND_CODES: ReadonlySet<string> = new Set(['200000', '200200', '200401', '200402', '200403']);
/** Seen before (checkDuplicate), with the slip's data: a success like any other. 400004 is a legacy code seen only in community code. */
export const SLIP2GO_SEEN_BEFORE_CODES: ReadonlySet<string> = new Set(['200501', '400004']);
/** Not a slip the bank knows: not found, a fake or damaged slip (200500), a QR or file that is not a slip. */
export const SLIP2GO_NOT_FOUND_CODES: ReadonlySet<string> = new Set(['200404', '200500', '400001', '400002']);
/**
 * Ask again later: 200502 (bank error, retryable), 200202 (queued), 400409
 * (conflict, retry); all seen only in community code, none with a delay.
 */
export const SLIP2GO_PENDING_CODES: ReadonlySet<string> = new Set(['200502', '200202', '400409']);
/**
 * This domain cannot serve: token unknown, shop not found, account
 * suspended, package expired, quota or credit short, IP not allowed; 400005
 * (quota) is seen only in community code.
 */
export const SLIP2GO_UNUSABLE_CODES: ReadonlySet<string> = new Set(['401001', '401002', '401003', '401004', '401005', '401006', '401007', '400005']);
/** GET /account/info answered. */
export const SLIP2GO_INFO_CODE = '200001';

// Every other code (400003 reference id, 400400 request invalid, 500500,
// 500503, 429000 rate limit, any undocumented one) is an upstream error.

/*
 * The found slip, `data` (amount in baht, dateTime ISO 8601 UTC with "Z"):
 *   {referenceId, decode (the QR text), transRef, dateTime, amount, ref1, ref2, ref3,
 *    receiver: {account: {name, bank: {account} | null, proxy: {type, account} | null}, bank: {id, name}},
 *    sender: {…the same…}}
 * /account/info's `data`: {shopName, package, packageExpiredDate, quotaLimit,
 *   quotaRemaining, creditRemaining, autoRenewalPackage, checkSlipByCredit}.
 */
