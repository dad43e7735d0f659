// Which registered receiver a verified slip paid, by the receiver rules of
// checks/receiver-rules.ts. A receiver is paid when the slip's value of the
// receiver's own kind (its bank account at its bank, or its PromptPay id)
// shows digits and they agree. Only when the slip shows no receiver digits
// at all (wholly masked) does the name (Thai or English) decide: a name never
// stands in for digits that point elsewhere.
import { accountMatches, hasVisibleDigits, nameMatches, slipReceiverAccounts, slipReceiverNames } from './checks/receiver-rules.js';
import type { ReceiverResult } from './checks/types.js';
import { ACCOUNT_ERRORS } from './errors.js';
import type { ReceiverSetup } from './receiver-directory.js';
import type { Receiver, VerifiedSlip } from './types.js';

/** The policy's verdict on a verified slip; undefined when the policy is `off`. */
export function receiverVerdict(setup: ReceiverSetup, slip: VerifiedSlip): ReceiverResult | undefined {
  return setup.policy === 'off' ? undefined : matchReceivers(slip, setup.receivers, setup.policy);
}

interface Match {
  receiver: Receiver;
  account: boolean;
  name: boolean;
  paid: boolean;
}

export function matchReceivers(slip: VerifiedSlip, receivers: readonly Receiver[], policy: ReceiverResult['policy']): ReceiverResult {
  const matches = receivers.filter((r) => r.active).map((r) => matchOne(slip, r));
  // Digits that agree outrank a name that does.
  const best = matches.find((m) => m.account) ?? matches.find((m) => m.paid);
  if (!best) return { passed: false, policy, receiverId: null, label: null, matchedBy: [] };
  const matchedBy: ReceiverResult['matchedBy'] = [];
  if (best.account) matchedBy.push('account');
  if (best.name) matchedBy.push('name');
  return { passed: true, policy, receiverId: best.receiver.id, label: best.receiver.label, matchedBy };
}

function matchOne(slip: VerifiedSlip, receiver: Receiver): Match {
  const shown = slipReceiverAccounts(slip).filter((a) => hasVisibleDigits(a.value));
  const sameKind = shown.filter((a) => a.kind === receiver.kind);
  // A bank account is only ever paid at its own bank.
  const atBank = receiver.kind === 'promptpay' || slip.receiverBankCode === '' || slip.receiverBankCode === receiver.bankCode;
  const account = atBank && sameKind.some((a) => accountMatches(a.value, receiver.number));
  const names = [receiver.nameTh, receiver.nameEn].filter((n): n is string => n !== null);
  const name = slipReceiverNames(slip).some((actual) => names.some((expected) => nameMatches(actual, expected)));
  return { receiver, account, name, paid: account || (shown.length === 0 && name) };
}

/** The failure record's message of a slip the policy refused: whom the bank named as the receiver. */
export function receiverRefusal(slip: VerifiedSlip): string {
  return `${ACCOUNT_ERRORS.receiver_not_registered.message}: the bank named ${bankNamedReceiver(slip)}`;
}

function bankNamedReceiver(slip: VerifiedSlip): string {
  const parts = [
    [...new Set(slipReceiverNames(slip))].join(' / '),
    slip.receiverBankAccountNumber && `account ${slip.receiverBankAccountNumber} at ${slip.receiverBankCode || 'an unnamed bank'}`,
    slip.receiverPromptpay && ['PromptPay', slip.receiverProxyType, slip.receiverPromptpay].filter((p) => p !== '').join(' '),
  ].filter((p) => p !== '');
  return parts.length > 0 ? parts.join(', ') : 'nobody';
}
