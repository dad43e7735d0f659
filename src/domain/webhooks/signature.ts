// Stripe's webhook signature scheme: one header
//   slipgate-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>
// The timestamp is inside the signed text, so a receiver that refuses old
// timestamps refuses replays too. The client SDK verifies (src/client/webhooks.ts).
import { createHmac, randomBytes } from 'node:crypto';

export const SIGNATURE_HEADER = 'slipgate-signature';
const SECRET_PREFIX = 'whsec_';

/** 256 random bits, shown once when the endpoint is registered. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

export function signatureHeader(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}
