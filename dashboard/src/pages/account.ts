// One account: balance, a 30-day usage chart, latest verifications and
// failures, API keys and the credit ledger.
import { gql } from '../api.js';
import { usageChart, type UsageDay } from '../chart.js';
import { pageHeading, type PageContext } from '../context.js';
import { h, text } from '../dom.js';
import { bangkokDay, bangkokMidnight, formatCount, formatThb } from '../format.js';
import { href } from '../router.js';
import { badge, dataTable, empty, loading, time } from '../ui.js';
import { bankLabel, errorKindLabel } from '../vocabulary.js';

interface Verification {
  __typename: 'VerifyTransaction';
  id: string;
  transactionId: string;
  amount: number;
  sendingBank: string;
  upstream: string;
  latencyMs: number;
  createdAt: string;
}

interface Failure {
  __typename: 'RequestError';
  id: string;
  kind: string;
  message: string;
  /** Aliased: the union's members type these fields differently (nullable here). */
  errorUpstream: string | null;
  errorLatencyMs: number | null;
  createdAt: string;
}

interface AccountDetail {
  id: string;
  name: string;
  credits: number;
  heldCredits: number;
  usage: number;
  createdAt: string;
  deletedAt: string | null;
  keys: { id: string; prefix: string; createdAt: string; lastUsedAt: string | null; revokedAt: string | null }[];
  ledger: { id: string; kind: string; delta: number; reason: string; actor: string; createdAt: string }[];
  recentActivity: (Verification | Failure)[];
}

const QUERY = `query Account($id: ID!, $from: DateTime!) {
  account(id: $id) {
    id name credits heldCredits usage createdAt deletedAt
    keys { id prefix createdAt lastUsedAt revokedAt }
    ledger(first: 10) { id kind delta reason actor createdAt }
    recentActivity(first: 20) {
      __typename
      ... on VerifyTransaction { id transactionId amount sendingBank upstream latencyMs createdAt }
      ... on RequestError { id kind message errorUpstream: upstream errorLatencyMs: latencyMs createdAt }
    }
  }
  usage(accountId: $id, from: $from) { day successes failures creditsSpent }
}`;

const CHART_DAYS = 30;

export async function accountPage(ctx: PageContext): Promise<void> {
  const id = ctx.path[1]!;
  const lastDay = bangkokDay(new Date());
  const firstDay = bangkokDay(new Date(Date.now() - (CHART_DAYS - 1) * 86_400_000));
  ctx.main.append(loading('the account'));
  const data = await gql<{ account: AccountDetail; usage: UsageDay[] }>(QUERY, { id, from: bangkokMidnight(firstDay) });
  if (!ctx.isCurrent()) return;
  const a = data.account;
  ctx.main.replaceChildren(
    h('p', { class: 'crumbs' }, h('a', { href: href(['accounts']) }, 'Accounts'), ' / ', text(a.name)),
    pageHeading(
      a.name,
      h(
        'div',
        { class: 'actions' },
        a.deletedAt ? null : h('a', { class: 'button-link primary', href: href(['top-up'], { account: a.id }) }, 'Top up credits'),
        h('a', { class: 'button-link', href: href(['audit'], { account: a.id }) }, 'Open in audit log'),
      ),
    ),
    summary(a),
    h('section', { 'aria-labelledby': 'usage-h' }, h('h2', { id: 'usage-h' }, `Usage, last ${CHART_DAYS} days (Bangkok)`), usageChart(data.usage, firstDay, lastDay)),
    h('section', { 'aria-labelledby': 'activity-h' }, h('h2', { id: 'activity-h' }, 'Latest verifications and failures'), activity(a.recentActivity)),
    h(
      'div',
      { class: 'two-col' },
      h('section', { 'aria-labelledby': 'keys-h' }, h('h2', { id: 'keys-h' }, 'API keys'), keys(a.keys)),
      h('section', { 'aria-labelledby': 'ledger-h' }, h('h2', { id: 'ledger-h' }, 'Credit ledger'), ledger(a.ledger)),
    ),
  );
  // The heading was replaced: the page title should name the account.
  document.title = `${a.name} · slipgate dashboard`;
  const h1 = ctx.main.querySelector('h1');
  if (h1 && /[\u0E00-\u0E7F]/.test(a.name)) h1.setAttribute('lang', 'th');
}

function summary(a: AccountDetail): HTMLElement {
  const item = (label: string, value: Node | string) => h('div', {}, h('dt', {}, label), h('dd', {}, value));
  return h(
    'dl',
    { class: 'summary' },
    item('Balance', h('span', { class: 'big', 'data-testid': 'balance' }, `${formatCount(a.credits)} credits`)),
    item('Held in flight', formatCount(a.heldCredits)),
    item('Verified (all time)', formatCount(a.usage)),
    item('Account ID', h('code', {}, a.id)),
    item('Created', time(a.createdAt) as Node),
    a.deletedAt ? item('Deleted', time(a.deletedAt) as Node) : item('Status', badge('active', 'ok')),
  );
}

function activity(rows: AccountDetail['recentActivity']): HTMLElement {
  if (rows.length === 0) return empty('No verifications or failed requests yet.');
  return dataTable(
    'Latest verifications and failures, newest first',
    [{ label: 'Time (Bangkok)' }, { label: 'Result' }, { label: 'Transaction / reason' }, { label: 'Amount', numeric: true }, { label: 'Sending bank' }, { label: 'Upstream' }, { label: 'Latency', numeric: true }],
    rows.map((r) =>
      r.__typename === 'VerifyTransaction'
        ? [time(r.createdAt), badge('verified', 'ok'), h('code', {}, r.transactionId), formatThb(r.amount), bankLabel(r.sendingBank), r.upstream, `${formatCount(r.latencyMs)} ms`]
        : [time(r.createdAt), badge(errorKindLabel(r.kind), 'bad'), r.message, h('span', { class: 'muted' }, '—'), '', r.errorUpstream ?? '', r.errorLatencyMs == null ? '' : `${formatCount(r.errorLatencyMs)} ms`],
    ),
    { captionHidden: true },
  );
}

function keys(list: AccountDetail['keys']): HTMLElement {
  if (list.length === 0) return empty('No API keys.');
  return dataTable(
    'API keys, newest first',
    [{ label: 'Key' }, { label: 'Created' }, { label: 'Last used' }, { label: 'State' }],
    list.map((k) => [h('code', {}, `${k.prefix}…`), time(k.createdAt), time(k.lastUsedAt), k.revokedAt ? badge('revoked', 'bad') : badge('active', 'ok')]),
    { captionHidden: true },
  );
}

function ledger(list: AccountDetail['ledger']): HTMLElement {
  if (list.length === 0) return empty('No credit changes yet.');
  return h(
    'div',
    { 'data-testid': 'ledger' },
    dataTable(
      'Credit changes, newest first',
      [{ label: 'When' }, { label: 'Change', numeric: true }, { label: 'Kind' }, { label: 'Reason' }, { label: 'By' }],
      list.map((e) => [time(e.createdAt), `${e.delta > 0 ? '+' : ''}${formatCount(e.delta)}`, e.kind.toLowerCase().replace('_', '-'), text(e.reason), h('span', { class: 'actor' }, e.actor)]),
      { captionHidden: true },
    ),
  );
}
