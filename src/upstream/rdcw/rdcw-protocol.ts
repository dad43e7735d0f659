// RDCW Slip Verify (slip.rdcw.co.th) as the adapter reads it. RDCW
// publishes no API text of its own that could be found; these come from the
// public SDKs github.com/PrakritManStudio/rdcw-slip and
// github.com/ArtifactyNight/node-rdcw-slipverify and integrations (what is
// uncertain: docs/banks.md#rdcw-slip-verify). The simulator has its own reading
// (simulator/rdcw-responder.ts) so that each checks the other.

/** POST, HTTP Basic (client id : client secret), JSON `{"payload": <QR text>}`. */
export const RDCW_INQUIRY_PATH = '/v1/inquiry';
export const RDCW_DEFAULT_BASE_URL = 'https://suba.rdcw.co.th';

export interface RdcwInquiryRequest {
  payload: string;
}

/**
 * Error codes (non-2xx `{code, message}`, statuses undocumented) by what
 * they mean to slipgate. 1004-1007 are v2 codes seen in one integration
 * (UNCERTAIN), read the same way in case an answer carries them.
 */
export const RDCW_CODES = {
  /** 10001 a malformed QR, 10002 not a slip QR; v2: 1004-1006 an invalid slip or QR. */
  notFound: new Set([10001, 10002, 1004, 1005, 1006]),
  /** "Unable to connect to Bank API at this moment": the bank behind is away, ask later. */
  bankDelayed: new Set([20001, 20002]),
  unusable: new Map([
    [21001, 'subscription expired or quota used up'],
    [40000, 'IP address not allowed'],
    [1007, 'rate limited until topped up'],
  ]),
  /** 0 "Invalid Data": no payload, or not JSON (slipgate's fault): an upstream error like an unknown code. */
} as const;

