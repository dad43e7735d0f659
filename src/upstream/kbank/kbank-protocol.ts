// KBank slip verification API: paths, codes and message shapes. The adapter
// and the simulated bank both use these, so the protocol is written once.
import type { RawSlipData } from '../../domain/types.js';

export const KBANK_TOKEN_PATH = '/v2/oauth/token';
export const KBANK_VERIFY_PATH = '/v1/verslip/kbank/verify';

export const KBANK_SUCCESS = '0000';
/** statusCodes that mean "no such slip" (not found or older than the bank keeps). */
export const KBANK_NOT_FOUND_CODES: ReadonlySet<string> = new Set(['8404']);
export const KBANK_NOT_FOUND_MESSAGE = 'Transaction not found or too old';

/** Answer of POST /v2/oauth/token (form grant_type=client_credentials, Basic auth). */
export interface KbankTokenResponse {
  access_token: string;
  token_type: string;
  /** Seconds; KBank sends it as text. */
  expires_in: string | number;
}

export interface KbankVerifyRequest {
  rqUID: string;
  /** ISO 8601 with +07:00. */
  rqDt: string;
  data: { sendingBank: string; transRef: string };
}

/** KBank reports the amount as a number, unlike the other networks. */
type KbankTransaction = Omit<RawSlipData, 'amount'> & { amount: number };

export interface KbankVerifyResponse {
  rsUID: string;
  rsDt: string;
  statusCode: string;
  statusMessage: string;
  data?: KbankTransaction | null;
}
