// What people do to accounts through the admin surfaces (GraphQL, CLI): the
// AccountService change itself, then an AdminEvent naming the actor and the
// reason. The money rules stay in AccountService and the store.
import type { LedgerResult, Store } from '../ports/store.js';
import { StoreError } from '../ports/store.js';
import { InputError } from '../errors.js';
import type { AccountService, IssuedKey } from '../accounts/operations.js';
import { recordAdminEvent } from './events.js';
import { ERASURE_ACTION } from '../personal-data/erasure-register.js';
import type { ChangeLog } from '../ports/logger.js';
import { removePersonalData, retentionCutoff, type PersonalDataResult } from '../personal-data/retention.js';
import { ReceiverService, type NewReceiver } from '../receivers/operations.js';
import type { Account, ApiKey, Receiver } from '../types.js';

/** The part of VerificationService that caches keys in this process. */
interface KeyCacheControl {
  forgetKey(keyId: string): void;
  forgetAccount(accountId: string): void;
}

/** The largest credits_low threshold: what every engine's credits column holds (32-bit). */
const MAX_THRESHOLD = 2_147_483_647;

/** The idempotency key was used before for another account or amount. */
export class IdempotencyConflictError extends Error {
  override name = 'IdempotencyConflictError';
}

export interface AdminActionsDeps {
  store: Store;
  accounts: AccountService;
  /** Defaults to one on `store`. */
  receivers?: ReceiverService;
  /** Absent in the CLI: other processes drop cached keys after their TTL. */
  keyCache?: KeyCacheControl;
  /** account.credits_low (credits-low.ts): settled after every balance or threshold change; absent: never announced from here. */
  creditsLow?: { afterChange(accountId: string): Promise<void>; forget(accountId: string): void };
  /** The verify path's cached receivers (receivers/directory.ts); absent in the CLI, like keyCache. */
  receiverCache?: { forgetAccount(accountId: string): void };
  /** Every change is also a log line, whichever surface made it (GraphQL, dashboard, CLI). */
  log?: ChangeLog;
  now?: () => Date;
}

/** The log line of each action: what changed, in words a support person searches for. */
const CHANGE_MESSAGES: Record<string, string> = {
  createAccount: 'account created',
  topUpCredits: 'credits topped up',
  adjustCredits: 'credits adjusted',
  createApiKey: 'API key created',
  setApiKeyAllowedIps: 'API key IP ranges changed',
  revokeApiKey: 'API key revoked',
  deleteAccount: 'account deleted',
  addReceiver: 'receiver registered',
  setReceiverActive: 'receiver activated or deactivated',
  removeReceiver: 'receiver removed',
  setReceiverPolicy: 'receiver policy changed',
  setUniquePaymentAmounts: 'unique payment amounts turned on or off',
  setCreditsLowAt: 'credits-low threshold changed',
};

export class AdminActions {
  private readonly now: () => Date;
  private readonly receivers: ReceiverService;

  constructor(private readonly deps: AdminActionsDeps) {
    this.now = deps.now ?? (() => new Date());
    this.receivers = deps.receivers ?? new ReceiverService(deps.store, this.now);
  }

  async createAccount(actor: string, input: { name: string; credits: number; reason?: string | null }): Promise<{ account: Account; apiKey: IssuedKey }> {
    const created = await this.deps.accounts.createAccount({ name: input.name, credits: input.credits, actor });
    await this.change(actor, 'createAccount', created.account.id, input.reason, {
      name: created.account.name,
      credits: input.credits,
      keyId: created.apiKey.key.id,
    });
    return created;
  }

  /**
   * A replay of the same idempotency key changes nothing. Its event is keyed
   * by the ledger entry, so a replay after a failed first event write fills
   * the gap, and never adds a second one.
   */
  async topUp(actor: string, input: { accountId: string; credits: number; reason: string; idempotencyKey: string | null }): Promise<LedgerResult> {
    const result = await idempotent(input.idempotencyKey, () => this.deps.accounts.topUp({ ...input, actor }));
    await this.recordLedgerChange('topUpCredits', result, actor);
    await this.deps.creditsLow?.afterChange(input.accountId);
    return result;
  }

  async adjust(actor: string, input: { accountId: string; delta: number; reason: string; idempotencyKey?: string | null }): Promise<LedgerResult> {
    const result = await idempotent(input.idempotencyKey ?? null, () => this.deps.accounts.adjust({ ...input, actor }));
    await this.recordLedgerChange('adjustCredits', result, actor);
    await this.deps.creditsLow?.afterChange(input.accountId);
    return result;
  }

  async createApiKey(actor: string, accountId: string, reason?: string | null, allowedIps: readonly string[] = []): Promise<IssuedKey> {
    const issued = await this.deps.accounts.createApiKey(accountId, allowedIps);
    await this.change(actor, 'createApiKey', accountId, reason, { keyId: issued.key.id, prefix: issued.key.prefix, allowedIps: issued.key.allowedIps });
    return issued;
  }

  /** Takes effect at once in this process; elsewhere within the key cache TTL. */
  async setApiKeyAllowedIps(actor: string, keyId: string, allowedIps: readonly string[], reason?: string | null): Promise<ApiKey> {
    const before = await this.deps.store.getApiKey(keyId);
    const key = await this.deps.accounts.setApiKeyAllowedIps(keyId, allowedIps);
    this.deps.keyCache?.forgetKey(keyId);
    await this.change(actor, 'setApiKeyAllowedIps', keyId, reason, { accountId: key.accountId, prefix: key.prefix, from: before?.allowedIps ?? [], to: key.allowedIps });
    return key;
  }

  async revokeApiKey(actor: string, keyId: string, reason?: string | null): Promise<ApiKey> {
    const key = await this.deps.accounts.revokeApiKey(keyId);
    this.deps.keyCache?.forgetKey(keyId);
    await this.change(actor, 'revokeApiKey', keyId, reason, { accountId: key.accountId, prefix: key.prefix });
    return key;
  }

  /** The name staff read and the checkout page shows its customers. */
  async renameAccount(actor: string, accountId: string, name: string, reason?: string | null): Promise<Account> {
    const { account, from } = await this.deps.accounts.renameAccount(accountId, name);
    this.deps.keyCache?.forgetAccount(accountId);
    await this.change(actor, 'renameAccount', accountId, reason, { from, to: account.name });
    return account;
  }

  async deleteAccount(actor: string, accountId: string, reason?: string | null): Promise<Account> {
    const account = await this.deps.accounts.deleteAccount(accountId);
    this.deps.keyCache?.forgetAccount(accountId);
    await this.change(actor, 'deleteAccount', accountId, reason, { name: account.name, credits: account.credits });
    return account;
  }

  // Receivers: each event's target is the account, so its page lists them with its other changes.

  async addReceiver(actor: string, input: NewReceiver, reason?: string | null): Promise<Receiver> {
    const receiver = await this.receivers.add(input);
    await this.receiverChange(actor, 'addReceiver', receiver, reason);
    return receiver;
  }

  /** `accountId`, when given, must own the receiver (ReceiverService). */
  async setReceiverActive(actor: string, receiverId: string, active: boolean, opts: { accountId?: string; reason?: string | null } = {}): Promise<Receiver> {
    const receiver = await this.receivers.setActive(receiverId, active, opts.accountId);
    await this.receiverChange(actor, 'setReceiverActive', receiver, opts.reason);
    return receiver;
  }

  async removeReceiver(actor: string, receiverId: string, opts: { accountId?: string; reason?: string | null } = {}): Promise<Receiver> {
    const receiver = await this.receivers.remove(receiverId, opts.accountId);
    await this.receiverChange(actor, 'removeReceiver', receiver, opts.reason);
    return receiver;
  }

  async setReceiverPolicy(actor: string, accountId: string, policy: string, reason?: string | null): Promise<Account> {
    const { account, from } = await this.receivers.setPolicy(accountId, policy);
    this.deps.receiverCache?.forgetAccount(accountId);
    await this.change(actor, 'setReceiverPolicy', accountId, reason, { from, to: account.receiverPolicy });
    return account;
  }

  /** Whether the account's new payment requests get unique amounts (docs/payments.md). */
  async setUniquePaymentAmounts(actor: string, accountId: string, on: boolean, reason?: string | null): Promise<boolean> {
    const from = await this.deps.store.uniquePaymentAmounts(accountId);
    if (!(await this.deps.store.setUniquePaymentAmounts(accountId, on))) throw new StoreError('not_found', 'account not found');
    await this.change(actor, 'setUniquePaymentAmounts', accountId, reason, { from, to: on });
    return on;
  }

  /**
   * The account.credits_low threshold (null: off). A new threshold re-arms
   * the event, and an account already below it is announced at once.
   */
  async setCreditsLowAt(actor: string, accountId: string, threshold: number | null, reason?: string | null): Promise<number | null> {
    if (threshold !== null && !(Number.isInteger(threshold) && threshold >= 1 && threshold <= MAX_THRESHOLD)) throw new InputError(`creditsLowAt must be a whole number of credits from 1 to ${MAX_THRESHOLD} (or off)`);
    const from = await this.deps.store.creditsLowAt(accountId);
    if (!(await this.deps.store.setCreditsLowAt(accountId, threshold))) throw new StoreError('not_found', 'account not found');
    this.deps.creditsLow?.forget(accountId);
    await this.change(actor, 'setCreditsLowAt', accountId, reason, { from, to: threshold });
    await this.deps.creditsLow?.afterChange(accountId);
    return threshold;
  }

  private async receiverChange(actor: string, action: string, r: Receiver, reason: string | null | undefined) {
    this.deps.receiverCache?.forgetAccount(r.accountId);
    await this.change(actor, action, r.accountId, reason, {
      receiverId: r.id,
      kind: r.kind,
      bankCode: r.bankCode,
      // Its last digits only: a PromptPay target may be a person's national ID, and events and logs are kept for good.
      numberEnd: r.number.slice(-4),
      proxyType: r.proxyType,
      label: r.label,
      active: r.active,
    });
  }

  /**
   * Erasure on request (PDPA): the account's personal data goes now, from
   * every record whatever its age, by the same redaction as retention. Its
   * credits, ledger and usage stay exact: verification records are redacted,
   * never deleted. Deleted accounts can be erased too.
   */
  async erasePersonalData(actor: string, accountId: string, reason?: string | null): Promise<{ account: Account } & PersonalDataResult> {
    const account = await this.deps.store.getAccount(accountId);
    if (!account) throw new StoreError('not_found', 'account not found');
    const result = await removePersonalData(this.deps.store, { accountId }, { now: this.now() });
    await this.record(actor, ERASURE_ACTION, accountId, reason, {
      redactedVerifications: result.redacted,
      deletedFailures: result.deleted,
      redactedRechecks: result.rechecks,
      ...unfinishedPurge(result),
    });
    return { account, ...result };
  }

  /** A retention pass an operator runs by hand (`slipgate retention run`); a dry run records nothing. */
  async runRetention(actor: string, olderThanDays: number, opts: { dryRun?: boolean } = {}): Promise<PersonalDataResult & { createdBefore: Date }> {
    const now = this.now();
    const createdBefore = retentionCutoff(now, olderThanDays);
    const result = await removePersonalData(this.deps.store, { createdBefore }, { now, dryRun: opts.dryRun });
    if (!result.dryRun) {
      await this.record(actor, 'runRetention', null, null, {
        olderThanDays,
        createdBefore: createdBefore.toISOString(),
        redactedVerifications: result.redacted,
        deletedFailures: result.deleted,
        redactedRechecks: result.rechecks,
        ...unfinishedPurge(result),
      });
    }
    return { ...result, createdBefore };
  }

  private record(actor: string, action: string, targetId: string | null, reason: string | null | undefined, details: Record<string, unknown>, id?: string) {
    return recordAdminEvent(this.deps.store, this.now(), { id, actor, action, targetId, reason: reason?.trim() || null, details });
  }

  /** The change is made by now: it is logged before the event write, which may fail, so the log never misses one. */
  private async change(actor: string, action: string, targetId: string, reason: string | null | undefined, details: Record<string, unknown>) {
    this.deps.log?.info({ action, actor, targetId, accountId: details.accountId ?? targetId, reason: reason?.trim() || null, ...details }, CHANGE_MESSAGES[action] ?? action);
    await this.record(actor, action, targetId, reason, details);
  }

  /**
   * The event is attributed to whoever made the change, even when someone
   * else replays it; the log line of a replay names who sent it and says
   * that nothing changed.
   */
  private async recordLedgerChange(action: string, { entry, account, created }: LedgerResult, sentBy: string) {
    const details = { ledgerEntryId: entry.id, delta: entry.delta, idempotencyKey: entry.idempotencyKey, balance: account.credits };
    const message = CHANGE_MESSAGES[action] ?? action;
    this.deps.log?.info(
      { action, actor: sentBy, targetId: entry.accountId, accountId: entry.accountId, reason: entry.reason, ...details, ...(created ? {} : { replay: true }) },
      created ? message : `${message}: replay of an earlier change, nothing changed`,
    );
    await this.record(entry.actor, action, entry.accountId, entry.reason, details, `evt_${entry.id}`);
  }
}

/** The audit trail says when the engine's files still hold old copies of what a pass removed (domain/retention.ts). */
function unfinishedPurge(result: PersonalDataResult): { filesNotCleared?: string } {
  return result.purge && !result.purge.complete ? { filesNotCleared: result.purge.detail } : {};
}

async function idempotent(key: string | null, change: () => Promise<LedgerResult>): Promise<LedgerResult> {
  try {
    return await change();
  } catch (err) {
    if (key !== null && err instanceof StoreError && err.code === 'conflict') {
      throw new IdempotencyConflictError('this idempotency key was already used for a different change (account, amount or kind)');
    }
    throw err;
  }
}

