// Which registered receiver a verified slip paid, by the receiver rules of
// checks/receiver-rules.ts. A receiver is paid only when everything the slip
// shows of its receiver agrees with it:
//
//   - the visible digits of the receiver's own kind (its bank account, or its
//     PromptPay id), when the slip shows any;
//   - the bank, when the slip names one and the receiver is a bank account
//     (a PromptPay target is paid at whatever bank holds it);
//   - the name, when the slip shows one: each name the slip shows that can be
//     compared with a registered one (same script) must be that name, whole or
//     cut short by the bank, and at least one must be.
//
// Banks show few digits (`xxxxx4567x`), so anyone can pick a PromptPay number
// or account with the same visible ones; the name is what tells the shop from
// the look-alike, and digits never outweigh a name that disagrees. A slip
// that shows no digits is judged by the name (and the bank) alone; one that
// shows neither pays nobody. A receiver with no name registered cannot agree
// with a shown name, so it is paid only by slips that show none.
import { accountMatches, hasVisibleDigits, namePrintedAs, sameScript, shownReceiverNames, slipReceiverAccounts, slipReceiverNames } from '../checks/receiver-rules.js';
import type { ReceiverResult } from '../checks/types.js';
import { ACCOUNT_ERRORS } from '../errors.js';
import type { ReceiverSetup } from './directory.js';
import type { Receiver, VerifiedSlip } from '../types.js';

/** The policy's verdict on a verified slip; undefined when the policy is `off`. */
export function receiverVerdict(setup: ReceiverSetup, slip: VerifiedSlip): ReceiverResult | undefined {
  return setup.policy === 'off' ? undefined : matchReceivers(slip, setup.receivers, setup.policy);
}

export function matchReceivers(slip: VerifiedSlip, receivers: readonly Receiver[], policy: ReceiverResult['policy']): ReceiverResult {
  for (const receiver of receivers) {
    if (!receiver.active) continue;
    const matchedBy = paidBy(slip, receiver);
    if (matchedBy) return { passed: true, policy, receiverId: receiver.id, label: receiver.label, matchedBy };
  }
  return { passed: false, policy, receiverId: null, label: null, matchedBy: [] };
}

/** What the slip showed of its receiver, all of it agreeing with `receiver`; null when anything disagrees or nothing was shown. */
function paidBy(slip: VerifiedSlip, receiver: Receiver): ReceiverResult['matchedBy'] | null {
  // A bank account is only ever paid at its own bank.
  if (receiver.kind === 'bank' && slip.receiverBankCode !== '' && slip.receiverBankCode !== receiver.bankCode) return null;
  const matchedBy: ReceiverResult['matchedBy'] = [];
  const shown = slipReceiverAccounts(slip).filter((a) => hasVisibleDigits(a.value));
  if (shown.length > 0) {
    // Digits of the other kind only (a PromptPay slip for a bank receiver) say nothing for this receiver.
    if (!shown.some((a) => a.kind === receiver.kind && accountMatches(a.value, receiver.number))) return null;
    matchedBy.push('account');
  }
  const names = shownReceiverNames(slip);
  if (names.length > 0) {
    if (!nameAgrees(names, [receiver.nameTh, receiver.nameEn].filter((n): n is string => n !== null))) return null;
    matchedBy.push('name');
  }
  return matchedBy.length > 0 ? matchedBy : null;
}

/** No shown name names someone else, and at least one is the receiver's. */
function nameAgrees(shown: string[], registered: string[]): boolean {
  let agreed = false;
  for (const name of shown) {
    const comparable = registered.filter((r) => sameScript(name, r));
    if (comparable.length === 0) continue;
    if (!comparable.some((r) => namePrintedAs(name, r))) return false;
    agreed = true;
  }
  return agreed;
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
