// Signing secrets and LINE channel secrets must be usable, so unlike API keys they cannot be
// kept only as a hash. With SECRETS_KEY set they are sealed with AES-256-GCM
// under that key (someone with the database alone cannot sign); without it
// they are stored as they are, marked so, and a key set later seals only new
// ones. docs/webhooks.md explains the trade-off.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const SEALED = 'aesgcm1';
const PLAIN = 'plain';

/** Stored as it is (SECRETS_KEY was unset when it was stored): `doctor --go-live` names it. */
export function isUnsealed(stored: string): boolean {
  return stored.startsWith(`${PLAIN}:`);
}

export class SecretKeyMissingError extends Error {
  override name = 'SecretKeyMissingError';
}

export interface SecretBox {
  /** Whether SECRETS_KEY is set: LINE channels are refused without it (docs/line.md). */
  readonly keyed: boolean;
  seal(secret: string): string;
  open(stored: string): string;
}

/** `key`: the 32-byte SECRETS_KEY (config.ts checks its form), or null. */
export function secretBox(key: Buffer | null): SecretBox {
  return {
    keyed: key !== null,
    seal(secret) {
      if (!key) return `${PLAIN}:${secret}`;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return [SEALED, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join(':');
    },
    open(stored) {
      const [kind, ...parts] = stored.split(':');
      if (kind === PLAIN) return parts.join(':');
      if (kind !== SEALED || parts.length !== 3) throw new Error('unknown stored secret format');
      if (!key) throw new SecretKeyMissingError('this signing secret is sealed with SECRETS_KEY, which is not set');
      const [iv, tag, sealed] = parts.map((p) => Buffer.from(p, 'base64url')) as [Buffer, Buffer, Buffer];
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
    },
  };
}
