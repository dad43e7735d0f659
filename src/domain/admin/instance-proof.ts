// How `doctor --go-live` knows that PUBLIC_URL reaches this very deployment
// and not another server (a staging host, an old VPS): it sends a random
// challenge header with a keyless POST PUBLIC_URL/api/v1/verify, and only a
// slipgate holding the same SECRETS_KEY puts the proof it computes itself in
// the 1020 answer's headers (the body stays the contract's). The proof is an HMAC
// under a key derived for this use alone, so answering anyone's challenge
// reveals nothing about SECRETS_KEY or what it seals.
import { createHmac } from 'node:crypto';

/** A challenge as the verify route accepts it: 16 to 128 base64url characters. */
export const CHALLENGE = /^[A-Za-z0-9_-]{16,128}$/;
/** The request header that carries the challenge, and the 1020 answer's headers that carry the proof and the X-Forwarded-For count. */
export const CHALLENGE_HEADER = 'x-slipgate-challenge';
export const PROOF_HEADER = 'x-slipgate-proof';
export const FORWARDED_FOR_HEADER = 'x-slipgate-forwarded-for';

export function instanceProof(secretsKey: Buffer, challenge: string): string {
  const proofKey = createHmac('sha256', secretsKey).update('slipgate healthz proof v1').digest();
  return createHmac('sha256', proofKey).update(challenge).digest('hex');
}
