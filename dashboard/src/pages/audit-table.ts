// The audit log's results: one page of verifications or failed requests from
// the GraphQL API, as a table, and what to say when there are none.
import { gql } from '../api.js';
import { h, text } from '../dom.js';
import { formatMs, formatThb, formatTime } from '../format.js';
import { t } from '../i18n/index.js';
import { href } from '../router.js';
import { badge, dataTable, time } from '../ui.js';
import { bankLabel, errorKindLabel } from '../vocabulary.js';
import { FIELDS, recordFilter, type Field, type RecordType } from './audit-filters.js';

export interface Page<T> {
  nodes: T[];
  pageInfo: { endCursor: string | null; hasNextPage: boolean };
}
interface AccountName {
  id: string;
  name: string;
}
interface Verification {
  id: string;
  transactionId: string;
  amount: number;
  sendingBank: string;
  receivingBank: string;
  upstream: string;
  latencyMs: number;
  createdAt: string;
  accountId: string;
  account: AccountName | null;
  /** Set once retention or an erasure removed the personal data. */
  redactedAt: string | null;
  /** LINE: sent by a customer in a LINE chat (docs/line.md). */
  source: 'QRCODE' | 'IMAGE' | 'LINE';
  /** Sent for a payment request: what the slip did to it (docs/payments.md). */
  payment: { requestId: string; status: string; reason: string | null } | null;
}
interface Failure {
  id: string;
  transactionId: string | null;
  kind: string;
  message: string;
  upstream: string | null;
  latencyMs: number | null;
  createdAt: string;
  accountId: string | null;
  account: AccountName | null;
  keyId: string | null;
}

const PAGE_SIZE = 25;
const VERIFICATIONS = `query Verifications($filter: VerifyTransactionFilter, $after: String) {
  verifyTransactions(filter: $filter, first: ${PAGE_SIZE}, after: $after) {
    nodes { id transactionId amount sendingBank receivingBank upstream latencyMs createdAt accountId account { id name } redactedAt source payment { requestId status reason } }
    pageInfo { endCursor hasNextPage }
  }
}`;
const FAILURES = `query Failures($filter: RequestErrorFilter, $after: String) {
  requestErrors(filter: $filter, first: ${PAGE_SIZE}, after: $after) {
    nodes { id transactionId kind message upstream latencyMs createdAt accountId account { id name } keyId }
    pageInfo { endCursor hasNextPage }
  }
}`;

/** One page of the chosen records under the filter, and its table. */
export async function recordsPage(type: RecordType, v: Record<Field, string>, after: string | null): Promise<{ page: Page<unknown>; table: HTMLElement }> {
  const common = recordFilter(v);
  if (type === 'verifications') {
    const data = await gql<{ verifyTransactions: Page<Verification> }>(VERIFICATIONS, { filter: common, after });
    return { page: data.verifyTransactions, table: verificationTable(data.verifyTransactions.nodes) };
  }
  const filter = { ...common, kind: v.kind || null };
  const data = await gql<{ requestErrors: Page<Failure> }>(FAILURES, { filter, after });
  return { page: data.requestErrors, table: failureTable(data.requestErrors.nodes) };
}

export function noneMessage(type: RecordType, v: Record<Field, string>): string {
  const m = t().audit;
  if (type === 'verifications' && v.transactionId) return m.noVerificationOf(v.transactionId);
  const failures = type === 'failures';
  return FIELDS.some((f) => v[f]) ? m.noneMatch(failures) : m.noneYet(failures);
}

function accountCell(id: string | null, account: AccountName | null): HTMLElement | string {
  if (!id) return h('span', { class: 'muted' }, t().audit.noAccount);
  return h('a', { href: href(['accounts', id]) }, account ? text(account.name) : id);
}

function verificationTable(rows: Verification[]): HTMLElement {
  const m = t().audit;
  return dataTable(
    m.verifications,
    [
      { label: m.time },
      { label: m.accountCol },
      { label: m.transactionId },
      { label: m.amount, numeric: true },
      { label: m.bank },
      { label: m.receivingBank },
      { label: m.upstream },
      { label: m.latency, numeric: true },
    ],
    rows.map((r) => [
      time(r.createdAt),
      accountCell(r.accountId, r.account),
      h('span', {}, h('code', {}, r.transactionId), ...(r.source === 'LINE' ? [' ', lineBadge()] : []), ...(r.redactedAt ? [' ', redactedBadge(r.redactedAt)] : []), ...(r.payment ? [' ', paymentBadge(r.payment)] : [])),
      formatThb(r.amount),
      bankLabel(r.sendingBank),
      bankLabel(r.receivingBank),
      r.upstream,
      formatMs(r.latencyMs),
    ]),
    { captionHidden: true },
  );
}

/** Says the slip came through a LINE chat (the channel stands where an API key would). */
function lineBadge(): HTMLElement {
  const label = badge(t().audit.viaLine, 'neutral');
  label.dataset.testid = 'via-line';
  return label;
}

/** What the slip did to the payment request it was sent for: paid it, or why not (a late transfer: `expired`). */
function paymentBadge(p: NonNullable<Verification['payment']>): HTMLElement {
  const m = t().audit;
  const label = badge(p.reason ? m.notPaid(p.reason) : m.paidRequest, p.reason ? 'warn' : 'ok');
  label.title = m.paymentTitle(p.requestId, p.status);
  label.dataset.testid = 'payment-verdict';
  return label;
}

/** Says the record lost its personal data (PDPA retention or erasure), and when. */
function redactedBadge(at: string): HTMLElement {
  const m = t().audit;
  const label = badge(m.redacted, 'neutral');
  label.title = m.redactedTitle(formatTime(at));
  label.dataset.testid = 'redacted';
  return label;
}

function failureTable(rows: Failure[]): HTMLElement {
  const m = t().audit;
  return dataTable(
    m.failures,
    [
      { label: m.time },
      { label: m.accountCol },
      { label: m.kind },
      { label: m.message },
      { label: m.upstream },
      { label: m.latency, numeric: true },
      { label: m.transactionId },
    ],
    rows.map((r) => [
      time(r.createdAt),
      accountCell(r.accountId, r.account),
      r.keyId?.startsWith('line:') ? h('span', {}, badge(errorKindLabel(r.kind), 'bad'), ' ', lineBadge()) : badge(errorKindLabel(r.kind), 'bad'),
      r.message,
      r.upstream ?? h('span', { class: 'muted' }, '—'),
      r.latencyMs == null ? '' : formatMs(r.latencyMs),
      r.transactionId ? h('code', {}, r.transactionId) : h('span', { class: 'muted' }, '—'),
    ]),
    { captionHidden: true },
  );
}
