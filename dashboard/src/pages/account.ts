// One account: balance, a 30-day usage chart, latest verifications and
// failures, API keys, the credit ledger, the receiving accounts, webhooks
// (account-webhooks.ts), LINE channels (account-line.ts) and payment requests
// (account-payments.ts).
import { gql } from '../api.js';
import { usageChart, type UsageDay } from '../chart.js';
import type { AdminRole } from '../api.js';
import { canChangeCredits, pageHeading, roleGatedLink, roleName, type PageContext } from '../context.js';
import { h, text } from '../dom.js';
import { bangkokDay, bangkokMidnight, formatCount, formatCredits, formatMs, formatThb } from '../format.js';
import { t } from '../i18n/index.js';
import { href } from '../router.js';
import { badge, dataTable, empty, loading, time } from '../ui.js';
import { bankLabel, errorKindLabel } from '../vocabulary.js';
import { receiversSection } from './account-receivers.js';
import { WEBHOOK_FIELDS, webhooksSection, type AccountWebhooks } from './account-webhooks.js';
import { PAYMENT_FIELDS, paymentsSection, type AccountPayments } from './account-payments.js';
import { LINE_FIELDS, lineSection, type AccountLine } from './account-line.js';
import { lineStaffSection } from './account-line-staff.js';
import { renameForm } from './account-rename.js';

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

interface Actor {
  kind: 'ADMIN_TOKEN' | 'CLI' | 'OTHER';
  name: string;
  role: AdminRole | null;
}

interface AccountDetail extends AccountWebhooks, AccountLine, AccountPayments {
  id: string;
  name: string;
  credits: number;
  heldCredits: number;
  usage: number;
  createdAt: string;
  deletedAt: string | null;
  keys: { id: string; prefix: string; createdAt: string; lastUsedAt: string | null; revokedAt: string | null; allowedIps: string[] }[];
  ledger: { id: string; kind: string; delta: number; reason: string; by: Actor; createdAt: string }[];
  recentActivity: (Verification | Failure)[];
}

const QUERY = `query Account($id: ID!, $from: DateTime!) {
  account(id: $id) {
    id name credits heldCredits usage createdAt deletedAt
    keys { id prefix createdAt lastUsedAt revokedAt allowedIps }
    ledger(first: 10) { id kind delta reason by { kind name role } createdAt }
    recentActivity(first: 20) {
      __typename
      ... on VerifyTransaction { id transactionId amount sendingBank upstream latencyMs createdAt }
      ... on RequestError { id kind message errorUpstream: upstream errorLatencyMs: latencyMs createdAt }
    }${WEBHOOK_FIELDS}${LINE_FIELDS}${PAYMENT_FIELDS}
  }
  usage(accountId: $id, from: $from) { day successes failures creditsSpent }
}`;

const CHART_DAYS = 30;

export async function accountPage(ctx: PageContext): Promise<void> {
  const id = ctx.path[1]!;
  const lastDay = bangkokDay(new Date());
  const firstDay = bangkokDay(new Date(Date.now() - (CHART_DAYS - 1) * 86_400_000));
  const m = t().account;
  ctx.main.append(loading(m.loading));
  const data = await gql<{ account: AccountDetail; usage: UsageDay[] }>(QUERY, { id, from: bangkokMidnight(firstDay) });
  if (!ctx.isCurrent()) return;
  const a = data.account;
  const crumb = text(a.name);
  const rename = renameForm(ctx, a, (name) => {
    crumb.textContent = name;
    const heading = ctx.main.querySelector('h1');
    if (heading) heading.textContent = name;
    document.title = t().app.title(name);
  });
  ctx.main.replaceChildren(
    h('p', { class: 'crumbs' }, h('a', { href: href(['accounts']) }, t().nav.accounts), ' / ', crumb),
    pageHeading(
      a.name,
      h(
        'div',
        { class: 'actions' },
        a.deletedAt ? null : roleGatedLink(ctx.me, canChangeCredits(ctx.me), { class: 'button-link primary', href: href(['top-up'], { account: a.id }) }, m.topUp),
        h('a', { class: 'button-link', href: href(['audit'], { account: a.id }) }, m.openAudit),
      ),
    ),
    ...(rename ? [rename] : []),
    summary(a),
    h('section', { 'aria-labelledby': 'usage-h' }, h('h2', { id: 'usage-h' }, m.usage(CHART_DAYS)), usageChart(data.usage, firstDay, lastDay)),
    h('section', { 'aria-labelledby': 'activity-h' }, h('h2', { id: 'activity-h' }, m.activity), activity(a.recentActivity)),
    h(
      'div',
      { class: 'two-col' },
      h('section', { 'aria-labelledby': 'keys-h' }, h('h2', { id: 'keys-h' }, m.keys), keys(a.keys)),
      h('section', { 'aria-labelledby': 'ledger-h' }, h('h2', { id: 'ledger-h' }, m.ledger), ledger(a.ledger)),
    ),
    receiversSection(ctx, a.id),
    paymentsSection(ctx, a.id, a, a.deletedAt !== null),
    webhooksSection(a, ctx.me, (message) => ctx.announce(message)),
    lineSection(a),
    lineStaffSection(ctx, a.id),
  );
  // The heading was replaced: the page title should name the account.
  document.title = t().app.title(a.name);
  const h1 = ctx.main.querySelector('h1');
  if (h1 && /[\u0E00-\u0E7F]/.test(a.name)) h1.setAttribute('lang', 'th');
}

function summary(a: AccountDetail): HTMLElement {
  const m = t().account;
  const item = (label: string, value: Node | string) => h('div', {}, h('dt', {}, label), h('dd', {}, value));
  return h(
    'dl',
    { class: 'summary' },
    item(m.balance, h('span', { class: 'big', 'data-testid': 'balance' }, formatCredits(a.credits))),
    item(m.held, formatCount(a.heldCredits)),
    item(m.verified, formatCount(a.usage)),
    item(m.id, h('code', {}, a.id)),
    item(m.created, time(a.createdAt) as Node),
    a.deletedAt ? item(m.deleted, time(a.deletedAt) as Node) : item(m.status, badge(m.active, 'ok')),
  );
}

function activity(rows: AccountDetail['recentActivity']): HTMLElement {
  const m = t().account;
  if (rows.length === 0) return empty(m.noActivity);
  return dataTable(
    m.activityCaption,
    [
      { label: m.time },
      { label: m.result },
      { label: m.transactionOrReason },
      { label: m.amount, numeric: true },
      { label: m.sendingBank },
      { label: m.upstream },
      { label: m.latency, numeric: true },
    ],
    rows.map((r) =>
      r.__typename === 'VerifyTransaction'
        ? [time(r.createdAt), badge(m.verifiedBadge, 'ok'), h('code', {}, r.transactionId), formatThb(r.amount), bankLabel(r.sendingBank), r.upstream, formatMs(r.latencyMs)]
        : [time(r.createdAt), badge(errorKindLabel(r.kind), 'bad'), r.message, h('span', { class: 'muted' }, '—'), '', r.errorUpstream ?? '', r.errorLatencyMs == null ? '' : formatMs(r.errorLatencyMs)],
    ),
    { captionHidden: true },
  );
}

function keys(list: AccountDetail['keys']): HTMLElement {
  const m = t().account;
  if (list.length === 0) return empty(m.noKeys);
  return dataTable(
    m.keysCaption,
    [{ label: m.key }, { label: m.created }, { label: m.lastUsed }, { label: m.allowedIps }, { label: m.state }],
    list.map((k) => [
      h('code', { class: 'key', title: m.keyHint(k.id) }, `${k.prefix}…`),
      time(k.createdAt),
      time(k.lastUsedAt),
      k.allowedIps.length === 0 ? m.anyAddress : h('ul', { class: 'chips' }, k.allowedIps.map((range) => h('li', {}, h('code', {}, range)))),
      k.revokedAt ? badge(m.revoked, 'bad') : badge(m.active, 'ok'),
    ]),
    { captionHidden: true },
  );
}

function ledger(list: AccountDetail['ledger']): HTMLElement {
  const m = t().account;
  if (list.length === 0) return empty(m.noLedger);
  return h(
    'div',
    { 'data-testid': 'ledger' },
    dataTable(
      m.ledgerCaption,
      [{ label: m.when }, { label: m.change, numeric: true }, { label: m.kind }, { label: m.reason }, { label: m.by }],
      list.map((e) => [
        time(e.createdAt),
        `${e.delta > 0 ? '+' : ''}${formatCount(e.delta)}`,
        m.ledgerKinds[e.kind] ?? e.kind.toLowerCase().replace('_', '-'),
        text(e.reason),
        actor(e.by),
      ]),
      { captionHidden: true },
    ),
  );
}

/** "somchai · support", "root · command line": who made a ledger change. */
function actor(by: Actor): HTMLElement {
  const m = t().account;
  if (by.kind === 'CLI') return h('span', { class: 'actor' }, m.cliActor(by.name));
  if (by.kind === 'OTHER') return h('span', { class: 'actor' }, by.name);
  return h('span', { class: 'actor' }, m.actor(by.name, by.role ? roleName(by.role) : m.formerToken));
}
