// The account page's payment requests: the latest ones with their status,
// the slip that paid each, and whether unique amounts are on. Support and
// admin staff make a request (an order taken by phone or LINE), cancel a
// pending one, copy its checkout link (docs/payments.md#checkout-page) and
// attach a verified slip to a pending or expired one (staff resolution,
// docs/payments.md#staff-resolution); the API enforces the roles and rules and its message is shown as it says.
// A request whose slip the bank did not know yet shows `verifying` and the
// slip being checked (docs/payments.md#re-checks).
import { gql } from '../api.js';
import { canChangeCredits, describeError, type PageContext } from '../context.js';
import { h } from '../dom.js';
import { formatThb } from '../format.js';
import { t } from '../i18n/index.js';
import { badge, dataTable, empty, time } from '../ui.js';
import { bankLabel } from '../vocabulary.js';

type Status = 'PENDING' | 'PAID' | 'EXPIRED' | 'CANCELLED';

export interface PaymentRequestRow {
  id: string;
  reference: string;
  amount: number;
  requestedAmount: number;
  status: Status;
  createdAt: string;
  expiresAt: string;
  paidBy: { transactionId: string; sendingBank: string; transferredAt: string } | null;
  /** The slip being re-checked for it (reference masked), while one is. */
  verifying: { sendingBank: string; transRef: string; since: string } | null;
  checkoutUrl: string | null;
}

export interface AccountPayments {
  uniquePaymentAmounts: boolean;
  paymentRequests: { nodes: PaymentRequestRow[] };
}

/** The fields account.ts adds to its query. */
export const PAYMENT_FIELDS = `
    uniquePaymentAmounts
    paymentRequests(first: 10) { nodes { id reference amount requestedAmount status createdAt expiresAt checkoutUrl paidBy { transactionId sendingBank transferredAt } verifying { sendingBank transRef since } } }`;

const RELOAD = `query ($id: ID!) { account(id: $id) { ${PAYMENT_FIELDS} } }`;
const CREATE = `mutation ($accountId: ID!, $amount: String!, $reference: String!, $successUrl: String) { createPaymentRequest(accountId: $accountId, amount: $amount, reference: $reference, successUrl: $successUrl) { id } }`;
const CANCEL = `mutation ($id: ID!) { cancelPaymentRequest(id: $id) { id } }`;
/** The account's verified slips of one transaction reference, newest first (a slip sent twice has two). */
const SLIP = `query ($accountId: ID!, $transactionId: String!) { verifyTransactions(filter: { accountId: $accountId, transactionId: $transactionId }, first: 1) { nodes { id } } }`;
const RESOLVE = `mutation ($id: ID!, $verificationId: ID!, $note: String, $force: Boolean) {
  resolvePaymentRequest(paymentRequestId: $id, verificationId: $verificationId, note: $note, force: $force) { changed }
}`;

const STATUS_TONE = { PENDING: 'warn', PAID: 'ok', EXPIRED: 'neutral', CANCELLED: 'neutral' } as const;

/** The section; after a change it reloads its own rows. */
export function paymentsSection(ctx: PageContext, accountId: string, first: AccountPayments, deleted: boolean): HTMLElement {
  const m = t().payments;
  const editable = canChangeCredits(ctx.me) && !deleted;
  const body = h('div', {});
  const result = h('div', { 'aria-live': 'polite' });
  const resolving = h('div', {});
  const section = h('section', { 'aria-labelledby': 'payments-h', 'data-testid': 'payments' }, h('h2', { id: 'payments-h' }, m.heading), body, resolving, editable ? createForm() : null, result);

  function render(data: AccountPayments): void {
    body.replaceChildren(
      h('p', { class: 'muted' }, data.uniquePaymentAmounts ? m.uniqueOn : m.uniqueOff),
      data.paymentRequests.nodes.length === 0 ? empty(m.none) : table(data.paymentRequests.nodes),
    );
  }

  async function change(query: string, variables: Record<string, unknown>, done: string): Promise<boolean> {
    try {
      await gql(query, variables);
      const { account } = await gql<{ account: AccountPayments }>(RELOAD, { id: accountId });
      if (!ctx.isCurrent()) return true;
      render(account);
      result.replaceChildren(h('p', { class: 'notice ok', role: 'status' }, done));
      ctx.announce(done);
      return true;
    } catch (err) {
      result.replaceChildren(h('p', { class: 'notice error', role: 'alert', 'data-testid': 'payments-error' }, describeError(err, ctx.me)));
      return false;
    }
  }

  /** The form that attaches a verified slip to `p`, shown under the table. */
  function resolveForm(p: PaymentRequestRow): HTMLElement {
    const verification = h('input', { id: 'resolve-verification', name: 'verificationId', type: 'text', required: true, autocomplete: 'off' });
    const note = h('input', { id: 'resolve-note', name: 'note', type: 'text', maxlength: 500, autocomplete: 'off' });
    const force = h('input', { id: 'resolve-force', name: 'force', type: 'checkbox' });
    const submit = async (event: SubmitEvent) => {
      event.preventDefault();
      const verificationId = await slipOf(verification.value.trim());
      if (verificationId === null) return;
      const vars = { id: p.id, verificationId, note: note.value.trim() || null, force: force.checked };
      if (await change(RESOLVE, vars, m.resolvedNotice(p.reference))) resolving.replaceChildren();
    };
    return h(
      'form',
      { class: 'card', 'aria-labelledby': 'payment-resolve-h', 'data-testid': 'payment-resolve', onsubmit: (event: SubmitEvent) => void submit(event) },
      h('h3', { id: 'payment-resolve-h' }, m.resolveHeading(p.reference)),
      h('p', { class: 'hint' }, m.resolveHint),
      h('div', { class: 'field' }, h('label', { for: 'resolve-verification' }, m.verificationId), verification),
      h('div', { class: 'field' }, h('label', { for: 'resolve-note' }, m.note), note),
      h('div', { class: 'field' }, h('label', { for: 'resolve-force' }, force, ' ', m.force)),
      h('div', { class: 'buttons' }, h('button', { type: 'submit' }, m.resolveButton)),
    );
  }

  /**
   * The verification to attach: a `req_…` id as given, or the account's
   * verified slip of a transaction reference (printed on the slip, shown in
   * the audit log). Null, with the reason shown, when there is none.
   */
  async function slipOf(given: string): Promise<string | null> {
    if (given.startsWith('req_')) return given;
    try {
      const { verifyTransactions } = await gql<{ verifyTransactions: { nodes: { id: string }[] } }>(SLIP, { accountId, transactionId: given });
      const found = verifyTransactions.nodes[0]?.id ?? null;
      if (found === null) result.replaceChildren(h('p', { class: 'notice error', role: 'alert', 'data-testid': 'payments-error' }, m.noSlip(given)));
      return found;
    } catch (err) {
      result.replaceChildren(h('p', { class: 'notice error', role: 'alert', 'data-testid': 'payments-error' }, describeError(err, ctx.me)));
      return null;
    }
  }

  function resolveButton(p: PaymentRequestRow): HTMLElement | null {
    if (!editable || (p.status !== 'PENDING' && p.status !== 'EXPIRED')) return null;
    return h('button', { type: 'button', class: 'secondary', 'data-testid': 'resolve-open', onclick: () => resolving.replaceChildren(resolveForm(p)) }, m.resolve);
  }

  function linkCell(p: PaymentRequestRow): HTMLElement {
    if (!p.checkoutUrl) return h('span', { class: 'buttons' }, h('span', { class: 'muted', title: m.noLink }, '—'), resolveButton(p));
    const field = h('input', { type: 'text', readonly: true, value: p.checkoutUrl, 'aria-label': m.linkLabel(p.reference), 'data-testid': 'checkout-link', size: 24 });
    const copy = h('button', {
      type: 'button',
      class: 'secondary',
      onclick: () => {
        field.select();
        void navigator.clipboard?.writeText(p.checkoutUrl!).then(() => ctx.announce(m.copied), () => undefined);
      },
    }, m.copy);
    const cancel = editable && p.status === 'PENDING' ? h('button', { type: 'button', class: 'secondary', onclick: () => void change(CANCEL, { id: p.id }, m.cancelled(p.reference)) }, m.cancel) : null;
    return h('span', { class: 'buttons' }, field, copy, cancel, resolveButton(p));
  }

  function table(rows: PaymentRequestRow[]): HTMLElement {
    return dataTable(
      m.caption,
      [{ label: m.created }, { label: m.reference }, { label: m.amount, numeric: true }, { label: m.status }, { label: m.paidBy }, { label: m.expires }, { label: m.actions }],
      rows.map((p) => [
        time(p.createdAt),
        h('span', { title: p.id }, p.reference),
        p.amount === p.requestedAmount ? formatThb(p.amount) : h('span', { title: m.requested(formatThb(p.requestedAmount)) }, formatThb(p.amount)),
        p.verifying && p.status === 'PENDING' ? badge(m.verifying, 'warn') : badge(m.statuses[p.status], STATUS_TONE[p.status]),
        slipCell(p),
        time(p.expiresAt),
        p.status === 'PENDING' ? linkCell(p) : (resolveButton(p) ?? h('span', { class: 'muted' }, '—')),
      ]),
      { captionHidden: true },
    );
  }

  function slipCell(p: PaymentRequestRow): HTMLElement {
    if (p.paidBy) return h('span', {}, h('code', {}, p.paidBy.transactionId), ` · ${bankLabel(p.paidBy.sendingBank)} · `, time(p.paidBy.transferredAt));
    if (p.verifying) return h('span', { 'data-testid': 'verifying-slip', title: m.checkingHint }, `${m.checking} `, h('code', {}, p.verifying.transRef), ` · ${bankLabel(p.verifying.sendingBank)} · `, time(p.verifying.since));
    return h('span', { class: 'muted' }, '—');
  }

  function createForm(): HTMLElement {
    const amount = h('input', { id: 'payment-amount', name: 'amount', type: 'text', inputmode: 'decimal', required: true, autocomplete: 'off' });
    const reference = h('input', { id: 'payment-reference', name: 'reference', type: 'text', required: true, maxlength: 128, autocomplete: 'off' });
    const successUrl = h('input', { id: 'payment-success-url', name: 'successUrl', type: 'url', autocomplete: 'off' });
    return h(
      'form',
      {
        class: 'card',
        'aria-labelledby': 'payment-create-h',
        onsubmit: (event: SubmitEvent) => {
          event.preventDefault();
          const ref = reference.value.trim();
          void change(CREATE, { accountId, amount: amount.value.trim(), reference: ref, successUrl: successUrl.value.trim() || null }, m.madeNotice(ref));
        },
      },
      h('h3', { id: 'payment-create-h' }, m.create),
      h('p', { class: 'hint' }, m.createHint),
      h('div', { class: 'field' }, h('label', { for: 'payment-amount' }, m.amountBaht), amount),
      h('div', { class: 'field' }, h('label', { for: 'payment-reference' }, m.reference), reference),
      h('div', { class: 'field' }, h('label', { for: 'payment-success-url' }, m.successUrl), successUrl),
      h('div', { class: 'buttons' }, h('button', { type: 'submit' }, m.createButton)),
    );
  }

  render(first);
  return section;
}
