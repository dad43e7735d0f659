// How `doctor --go-live` knows that PUBLIC_URL reaches this very deployment
// and not another server (a staging host, an old VPS): it sends a random
// challenge to PUBLIC_URL/healthz, and only a slipgate holding the same
// SECRETS_KEY answers the proof it computes itself. The proof is an HMAC
// under a key derived for this use alone, so answering anyone's challenge
// reveals nothing about SECRETS_KEY or what it seals.
import { createHmac } from 'node:crypto';

/** A challenge as the public /healthz accepts it: 16 to 128 base64url characters. */
export const CHALLENGE = /^[A-Za-z0-9_-]{16,128}$/;

export function instanceProof(secretsKey: Buffer, challenge: string): string {
  const proofKey = createHmac('sha256', secretsKey).update('slipgate healthz proof v1').digest();
  return createHmac('sha256', proofKey).update(challenge).digest('hex');
}
