// Account, key and credit operations shared by the CLI and the GraphQL API,
// so no money rule lives in a resolver or a command.
import type { LedgerResult, Store } from '../ports/store.js';
import { InputError } from '../errors.js';
import { StoreError } from '../ports/store.js';
import { generateApiKey, newId } from '../keys/api-key.js';
import { parseAllowList } from '../keys/ip-allow-list.js';
import type { Account, ApiKey, LedgerKind } from '../types.js';

/** Upper bound of one credit change: catches typos like an extra zero or two. */
const MAX_CREDIT_CHANGE = 10_000_000;

export interface IssuedKey {
  key: ApiKey;
  /** The only time the whole key is ever available. */
  secret: string;
}

export class AccountService {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async createAccount(input: { name: string; credits: number; actor: string }): Promise<{ account: Account; apiKey: IssuedKey }> {
    const name = accountName(input.name);
    if (input.credits !== 0) checkCredits(input.credits);
    const account = await this.store.createAccount({ id: newId('acc'), name, createdAt: this.now() });
    const apiKey = await this.createApiKey(account.id);
    if (input.credits === 0) return { account, apiKey };
    const { account: funded } = await this.change(account.id, 'initial', input.credits, 'initial credits', input.actor, null);
    return { account: funded, apiKey };
  }

  async topUp(input: { accountId: string; credits: number; reason: string; actor: string; idempotencyKey?: string | null }): Promise<LedgerResult> {
    checkCredits(input.credits);
    return this.change(input.accountId, 'top_up', input.credits, input.reason, input.actor, input.idempotencyKey ?? null);
  }

  /** Corrections in either direction; a negative change never overdraws. */
  async adjust(input: { accountId: string; delta: number; reason: string; actor: string; idempotencyKey?: string | null }): Promise<LedgerResult> {
    if (!Number.isSafeInteger(input.delta) || input.delta === 0 || Math.abs(input.delta) > MAX_CREDIT_CHANGE) {
      throw new InputError(`delta must be a non-zero whole number between -${MAX_CREDIT_CHANGE} and ${MAX_CREDIT_CHANGE}`);
    }
    return this.change(input.accountId, 'adjustment', input.delta, input.reason, input.actor, input.idempotencyKey ?? null);
  }

  /** `allowedIps`: CIDR ranges the key may be used from; none = any address. */
  async createApiKey(accountId: string, allowedIps: readonly string[] = []): Promise<IssuedKey> {
    const ranges = checkAllowList(allowedIps);
    const account = await this.store.getAccount(accountId);
    if (!account || account.deletedAt) throw new StoreError('not_found', 'account not found');
    const generated = generateApiKey();
    const key: ApiKey = {
      id: newId('key'),
      accountId,
      prefix: generated.prefix,
      hash: generated.hash,
      createdAt: this.now(),
      lastUsedAt: null,
      revokedAt: null,
      allowedIps: ranges,
    };
    await this.store.createApiKey(key);
    return { key, secret: generated.key };
  }

  async revokeApiKey(keyId: string): Promise<ApiKey> {
    const key = await this.store.getApiKey(keyId);
    if (!key) throw new StoreError('not_found', 'api key not found');
    await this.store.revokeApiKey(keyId, this.now());
    return (await this.store.getApiKey(keyId)) ?? key;
  }

  /** Replaces the key's allowed ranges; an empty list lets any address use it again. */
  async setApiKeyAllowedIps(keyId: string, allowedIps: readonly string[]): Promise<ApiKey> {
    const ranges = checkAllowList(allowedIps);
    const key = await this.store.getApiKey(keyId);
    if (!key) throw new StoreError('not_found', 'api key not found');
    if (key.revokedAt) throw new InputError('api key is revoked');
    await this.store.setApiKeyAllowedIps(keyId, ranges);
    return (await this.store.getApiKey(keyId)) ?? { ...key, allowedIps: ranges };
  }

  /** The new name (trimmed, checked as at creation) and the one it replaced. */
  async renameAccount(accountId: string, newName: string): Promise<{ account: Account; from: string }> {
    const name = accountName(newName);
    const account = await this.store.getAccount(accountId);
    if (!account || account.deletedAt) throw new StoreError('not_found', 'account not found');
    if (!(await this.store.renameAccount(accountId, name))) throw new StoreError('not_found', 'account not found');
    return { account: (await this.store.getAccount(accountId)) ?? { ...account, name }, from: account.name };
  }

  async deleteAccount(accountId: string): Promise<Account> {
    const account = await this.store.getAccount(accountId);
    if (!account || account.deletedAt) throw new StoreError('not_found', 'account not found');
    await this.store.deleteAccount(accountId, this.now());
    return (await this.store.getAccount(accountId)) ?? account;
  }

  private change(accountId: string, kind: LedgerKind, delta: number, reason: string, actor: string, idempotencyKey: string | null) {
    const why = reason.trim();
    if (why.length === 0 || why.length > 500) throw new InputError('reason must be 1 to 500 characters');
    if (idempotencyKey !== null && (idempotencyKey.length === 0 || idempotencyKey.length > 200)) {
      throw new InputError('idempotency key must be 1 to 200 characters');
    }
    return this.store.applyLedgerEntry({ id: newId('led'), accountId, kind, delta, reason: why, actor, idempotencyKey, createdAt: this.now() });
  }
}

function checkAllowList(allowedIps: readonly string[]): string[] {
  const parsed = parseAllowList(allowedIps);
  if (!parsed.ok) throw new InputError(parsed.message);
  return parsed.ranges;
}

function checkCredits(credits: number): void {
  if (!Number.isSafeInteger(credits) || credits <= 0 || credits > MAX_CREDIT_CHANGE) {
    throw new InputError(`credits must be a whole number from 1 to ${MAX_CREDIT_CHANGE}`);
  }
}

/** An account's name as people and the checkout page read it: 1 to 200 characters once trimmed. */
function accountName(input: string): string {
  const name = input.trim();
  if (name.length === 0 || name.length > 200) throw new InputError('name must be 1 to 200 characters');
  return name;
}
