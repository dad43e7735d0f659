// The receiver registry and policy of merchant accounts, shared by GraphQL,
// the dashboard and the CLI: input checked once here (receivers/input.ts),
// and the rule that an account requiring a registered receiver always has
// an active one.
import type { Store } from '../ports/store.js';
import { StoreError } from '../ports/store.js';
import { InputError } from '../errors.js';
import { newId } from '../keys/api-key.js';
import { bankTarget, promptPayTarget, receiverLabel, receiverName } from './input.js';
import { RECEIVER_POLICIES, type Account, type Receiver, type ReceiverPolicy } from '../types.js';

/** At most this many receivers per account: the verify path compares a slip with each. */
const MAX_RECEIVERS = 100;

export interface NewReceiver {
  accountId: string;
  /** Either a bank account (bankCode + account) … */
  bankCode?: string | null;
  account?: string | null;
  /** … or a PromptPay target. */
  promptPay?: string | null;
  nameTh?: string | null;
  nameEn?: string | null;
  label?: string | null;
}

export class ReceiverService {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async add(input: NewReceiver): Promise<Receiver> {
    const target = targetOf(input);
    const nameTh = receiverName(input.nameTh, 'name');
    const nameEn = receiverName(input.nameEn, 'English name');
    if (nameTh === null && nameEn === null) throw new InputError('a receiver needs the name its bank prints (Thai and/or English)');
    const label = receiverLabel(input.label);
    await this.liveAccount(input.accountId);
    const existing = await this.store.listReceivers(input.accountId);
    if (existing.length >= MAX_RECEIVERS) throw new InputError(`an account may register at most ${MAX_RECEIVERS} receivers`);
    const same = existing.find((r) => r.kind === target.kind && r.bankCode === target.bankCode && r.number === target.number);
    if (same) throw new InputError(`this ${target.kind === 'bank' ? 'bank account' : 'PromptPay ID'} is already registered as ${same.id}`);
    const receiver: Receiver = { id: newId('rcv'), accountId: input.accountId, ...target, nameTh, nameEn, label, active: true, createdAt: this.now() };
    await this.store.createReceiver(receiver);
    return receiver;
  }

  async list(accountId: string): Promise<Receiver[]> {
    const account = await this.store.getAccount(accountId);
    if (!account) throw new StoreError('not_found', 'account not found');
    return this.store.listReceivers(accountId);
  }

  /**
   * Deactivating keeps the receiver for later; the last active one of a
   * `require` account stays. `accountId`, when given, must be the receiver's
   * own: a screen about one account never changes another's.
   */
  async setActive(receiverId: string, active: boolean, accountId?: string): Promise<Receiver> {
    const receiver = await this.found(receiverId, accountId);
    if (!active && receiver.active) await this.mayLose(receiver, 'deactivate');
    await this.store.setReceiverActive(receiverId, active);
    return { ...receiver, active };
  }

  async remove(receiverId: string, accountId?: string): Promise<Receiver> {
    const receiver = await this.found(receiverId, accountId);
    if (receiver.active) await this.mayLose(receiver, 'remove');
    await this.store.deleteReceiver(receiverId);
    return receiver;
  }

  /** `require` needs an active receiver first: otherwise every slip would be refused. */
  async setPolicy(accountId: string, policy: string): Promise<{ account: Account; from: ReceiverPolicy }> {
    if (!(RECEIVER_POLICIES as readonly string[]).includes(policy)) throw new InputError(`receiver policy must be one of ${RECEIVER_POLICIES.join(', ')}`);
    const account = await this.liveAccount(accountId);
    if (policy === 'require' && !(await this.store.listReceivers(accountId)).some((r) => r.active)) {
      throw new InputError('receiver policy require needs at least one active registered receiver: add one first (slipgate receivers add)');
    }
    if (!(await this.store.setReceiverPolicy(accountId, policy as ReceiverPolicy))) throw new StoreError('not_found', 'account not found');
    return { account: { ...account, receiverPolicy: policy as ReceiverPolicy }, from: account.receiverPolicy };
  }

  private async found(receiverId: string, accountId: string | undefined): Promise<Receiver> {
    const receiver = await this.store.getReceiver(receiverId);
    if (!receiver) throw new StoreError('not_found', 'receiver not found');
    if (accountId !== undefined && receiver.accountId !== accountId) throw new InputError(`receiver ${receiverId} belongs to another account, not ${accountId}`);
    return receiver;
  }

  private async liveAccount(accountId: string): Promise<Account> {
    const account = await this.store.getAccount(accountId);
    if (!account || account.deletedAt) throw new StoreError('not_found', 'account not found');
    return account;
  }

  private async mayLose(receiver: Receiver, verb: string): Promise<void> {
    const account = await this.store.getAccount(receiver.accountId);
    if (account?.receiverPolicy !== 'require') return;
    const others = (await this.store.listReceivers(receiver.accountId)).filter((r) => r.active && r.id !== receiver.id);
    if (others.length === 0) {
      throw new InputError(`cannot ${verb} the last active receiver of an account whose receiver policy is require: set the policy to report or off first`);
    }
  }
}

function targetOf(input: NewReceiver) {
  const bank = input.bankCode != null || input.account != null;
  const promptPay = input.promptPay != null;
  if (bank === promptPay) throw new InputError('give either a bank account (bank code and account number) or a PromptPay ID');
  if (promptPay) return promptPayTarget(input.promptPay!);
  if (input.bankCode == null || input.account == null) throw new InputError('a bank account needs both its bank code and its account number');
  return bankTarget(input.bankCode, input.account);
}
