// LINE signs each webhook request: x-line-signature is the base64
// HMAC-SHA256 of the raw body bytes under the channel secret
// (developers.line.biz, "Verify webhook signature"). Checked over the bytes
// as received, before any JSON parsing, in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';

const SHA256_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]{43}=$/;

/** The header's 32 bytes, or null when it is missing or not a base64 SHA-256 digest. */
export function signatureBytes(header: string | string[] | undefined): Buffer | null {
  if (typeof header !== 'string' || !BASE64.test(header)) return null;
  const bytes = Buffer.from(header, 'base64');
  return bytes.length === SHA256_BYTES ? bytes : null;
}

export function lineSignature(secret: string, body: Buffer): Buffer {
  return createHmac('sha256', secret).update(body).digest();
}

export function signatureMatches(secret: string, body: Buffer, signature: Buffer): boolean {
  return timingSafeEqual(lineSignature(secret, body), signature);
}
