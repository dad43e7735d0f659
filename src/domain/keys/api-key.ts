// API keys: 192 random bits behind a visible prefix, shown once, stored as SHA-256.
import { createHash, randomBytes } from 'node:crypto';
import { timeOrderedUuid } from '../time-ordered-uuid.js';

const API_KEY_PREFIX = 'slip_';
/** How much of the key is kept in clear for display (prefix + 8 chars). */
const VISIBLE_LENGTH = API_KEY_PREFIX.length + 8;

export interface NewApiKey {
  /** The whole key: give it to the customer once, never store it. */
  key: string;
  prefix: string;
  hash: string;
}

export function generateApiKey(): NewApiKey {
  const key = API_KEY_PREFIX + randomBytes(24).toString('base64url');
  return { key, prefix: key.slice(0, VISIBLE_LENGTH), hash: hashSecret(key) };
}

/** SHA-256 hex: keys are high-entropy, so a slow hash would add nothing. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Time-ordered (see time-ordered-uuid.ts), so each table's id index grows at its end. */
export function newId(kind: 'acc' | 'key' | 'req' | 'led' | 'adm' | 'evt' | 'ins' | 'rcv' | 'whe' | 'whd' | 'pr'): string {
  return `${kind}_${timeOrderedUuid().replaceAll('-', '')}`;
}
