// Tokens for the internal GraphQL API and what each role may do. Like API
// keys they are shown once and stored as SHA-256 hashes.
import { randomBytes } from 'node:crypto';
import type { ChangeLog } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import { InputError } from '../errors.js';
import { recordAdminEvent } from './events.js';
import { hashSecret, newId } from '../keys/api-key.js';
import type { AdminRole, AdminToken } from '../types.js';

const ADMIN_TOKEN_PREFIX = 'sgadm_';
/** Visible start kept for lists and logs: prefix + 8 characters. */
const VISIBLE_LENGTH = ADMIN_TOKEN_PREFIX.length + 8;

/**
 * A token's name is shown in tables, logs, the audit trail's actor and the
 * dashboard: no control characters (terminal escapes, newlines), invisible
 * formatting (bidi overrides that reorder what a reader sees) or line and
 * paragraph separators. Letters of any script, marks and spaces are fine.
 */
const PRINTABLE = /^[^\p{C}\p{Zl}\p{Zp}]+$/u;

export const ADMIN_ROLES: readonly AdminRole[] = ['viewer', 'support', 'admin'];

/** Each role may do everything the roles before it may. */
const RANK: Record<AdminRole, number> = { viewer: 0, support: 1, admin: 2 };

export function roleAllows(role: AdminRole, needed: AdminRole): boolean {
  return RANK[role] >= RANK[needed];
}

export function isAdminRole(value: string): value is AdminRole {
  return (ADMIN_ROLES as readonly string[]).includes(value);
}

export interface IssuedAdminToken {
  token: AdminToken;
  /** The only time the whole token is ever available. */
  secret: string;
}

export class AdminTokenService {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date = () => new Date(),
    /** A token is access to money and personal data: making or ending one is a change like any other admin action. */
    private readonly log?: ChangeLog,
  ) {}

  async create(input: { name: string; role: string; actor: string }): Promise<IssuedAdminToken> {
    const name = input.name.trim();
    if (name.length === 0 || name.length > 100) throw new InputError('name must be 1 to 100 characters');
    if (!PRINTABLE.test(name)) throw new InputError('name must be printable text: no control, formatting or line-break characters');
    if (!isAdminRole(input.role)) throw new InputError(`role must be one of ${ADMIN_ROLES.join(', ')}`);
    const secret = ADMIN_TOKEN_PREFIX + randomBytes(24).toString('base64url');
    const token: AdminToken = {
      id: newId('adm'),
      name,
      role: input.role,
      prefix: secret.slice(0, VISIBLE_LENGTH),
      hash: hashSecret(secret),
      createdAt: this.now(),
      lastUsedAt: null,
      revokedAt: null,
    };
    await this.store.createAdminToken(token);
    // Logged before the event write, which may fail, so the log never misses one.
    this.log?.info({ action: 'createAdminToken', actor: input.actor, targetId: token.id, name, role: token.role }, 'admin token created');
    await recordAdminEvent(this.store, this.now(), { actor: input.actor, action: 'createAdminToken', targetId: token.id, details: { name, role: token.role } });
    return { token, secret };
  }

  list(): Promise<AdminToken[]> {
    return this.store.listAdminTokens();
  }

  /** False when the token does not exist or was already revoked. */
  async revoke(id: string, actor: string): Promise<boolean> {
    const revoked = await this.store.revokeAdminToken(id, this.now());
    if (!revoked) return false;
    this.log?.info({ action: 'revokeAdminToken', actor, targetId: id }, 'admin token revoked');
    await recordAdminEvent(this.store, this.now(), { actor, action: 'revokeAdminToken', targetId: id });
    return true;
  }

  /** A live token for the secret, or null (unknown, malformed or revoked). */
  async authenticate(secret: string): Promise<AdminToken | null> {
    if (!secret.startsWith(ADMIN_TOKEN_PREFIX) || secret.length > 200) return null;
    const token = await this.store.findAdminTokenByHash(hashSecret(secret));
    return token && !token.revokedAt ? token : null;
  }
}

/** How a token appears as `actor` in ledger entries and admin events. */
export function tokenActor(token: AdminToken): string {
  return `admin:${token.id}:${token.name}`;
}

/** Who an `actor` string names: an admin token (by id, with the name it had then), a CLI user, or something else kept as written. */
export type ActorParts = { kind: 'admin_token'; tokenId: string; name: string } | { kind: 'cli'; name: string } | { kind: 'other'; name: string };

export function parseActor(actor: string): ActorParts {
  const admin = /^admin:([^:]+):(.*)$/s.exec(actor);
  if (admin) return { kind: 'admin_token', tokenId: admin[1]!, name: admin[2]! };
  if (actor.startsWith('cli:')) return { kind: 'cli', name: actor.slice(4) };
  return { kind: 'other', name: actor };
}
