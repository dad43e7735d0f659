// The account page's payment requests: the latest ones with their status,
// the slip that paid each, and whether unique amounts are on. Read-only here;
// merchants make and cancel requests through the public API.
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
}

export interface AccountPayments {
  uniquePaymentAmounts: boolean;
  paymentRequests: { nodes: PaymentRequestRow[] };
}

/** The fields account.ts adds to its query. */
export const PAYMENT_FIELDS = `
    uniquePaymentAmounts
    paymentRequests(first: 10) { nodes { id reference amount requestedAmount status createdAt expiresAt paidBy { transactionId sendingBank transferredAt } } }`;

const STATUS_TONE = { PENDING: 'warn', PAID: 'ok', EXPIRED: 'neutral', CANCELLED: 'neutral' } as const;

export function paymentsSection(data: AccountPayments): HTMLElement {
  const m = t().payments;
  const rows = data.paymentRequests.nodes;
  return h(
    'section',
    { 'aria-labelledby': 'payments-h', 'data-testid': 'payments' },
    h('h2', { id: 'payments-h' }, m.heading),
    h('p', { class: 'muted' }, data.uniquePaymentAmounts ? m.uniqueOn : m.uniqueOff),
    rows.length === 0
      ? empty(m.none)
      : dataTable(
          m.caption,
          [{ label: m.created }, { label: m.reference }, { label: m.amount, numeric: true }, { label: m.status }, { label: m.paidBy }, { label: m.expires }],
          rows.map((p) => [
            time(p.createdAt),
            h('span', { title: p.id }, p.reference),
            p.amount === p.requestedAmount ? formatThb(p.amount) : h('span', { title: m.requested(formatThb(p.requestedAmount)) }, formatThb(p.amount)),
            badge(m.statuses[p.status], STATUS_TONE[p.status]),
            p.paidBy ? h('span', {}, h('code', {}, p.paidBy.transactionId), ` · ${bankLabel(p.paidBy.sendingBank)} · `, time(p.paidBy.transferredAt)) : h('span', { class: 'muted' }, '—'),
            time(p.expiresAt),
          ]),
          { captionHidden: true },
        ),
  );
}
