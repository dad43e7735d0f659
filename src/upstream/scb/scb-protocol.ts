// SCB partner API (slip verification): paths, codes and message shapes,
// shared by the adapter and the simulated bank.
import type { RawSlipData } from '../../domain/types.js';

export const SCB_TOKEN_PATH = '/v1/oauth/token';
/** Followed by /{transRef}?sendingBank=… */
export const SCB_VERIFY_PATH = '/v1/payment/billpayment/transactions';

export const SCB_SUCCESS = 1000;
/** status.codes that mean "no such slip". */
export const SCB_NOT_FOUND_CODES: ReadonlySet<number> = new Set([4101]);
export const SCB_NOT_FOUND_MESSAGE = 'Transaction not found';

interface ScbStatus {
  code: number;
  description: string;
}

/** Body of POST /v1/oauth/token. */
export interface ScbTokenRequest {
  applicationKey: string;
  applicationSecret: string;
}

export interface ScbTokenResponse {
  status: ScbStatus;
  data?: { accessToken: string; tokenType: string; expiresIn: number; expiresAt: number } | null;
}

export interface ScbVerifyResponse {
  status: ScbStatus;
  /** Amount as text, as the network's payload carries it (docs/contract.md#responses). */
  data?: RawSlipData | null;
}
