// `slipgate/client`: the typed SDK for POST /api/v1/verify. Browser-safe (no
// Node APIs here); image decoding lives in `slipgate/client/image` (Node,
// sharp) and `slipgate/client/pixels` (browser, RGBA pixels).
export type { NewPaymentRequest, PaymentRequestCalls } from './payments.js';
export { createClient, SlipgateError, type ClientOptions, type SlipgateClient, type SlipImageInput, type TransportFailure, type VerifyOptions } from './client.js';
export * from './types.js';
