// Health of the verification network's domains (banks and slip APIs), as this
// slipgate process sees them: priority, whether each serves now, its quota.
import { gql } from '../api.js';
import { pageHeading, type PageContext } from '../context.js';
import { h } from '../dom.js';
import { formatClock, formatCount, formatMs } from '../format.js';
import { t } from '../i18n/index.js';
import { badge, dataTable, empty, loading } from '../ui.js';
import { errorKindLabel } from '../vocabulary.js';

interface Upstream {
  name: string;
  provider: string;
  enabled: boolean;
  weight: number;
  priority: number;
  usable: boolean;
  unusableReason: string | null;
  readsQuota: boolean;
  quotaRemaining: number | null;
  requests: number;
  failures: number;
  failuresByKind: { kind: string; count: number }[];
  consecutiveFailures: number;
  p50Ms: number | null;
  p95Ms: number | null;
  breaker: 'CLOSED' | 'OPEN' | 'HALF_OPEN';
}

const QUERY = `query Upstreams {
  upstreams { name provider enabled weight priority usable unusableReason readsQuota quotaRemaining requests failures failuresByKind { kind count } consecutiveFailures p50Ms p95Ms breaker }
}`;

const BREAKER = {
  CLOSED: () => badge(t().upstreams.closed, 'ok'),
  HALF_OPEN: () => badge(t().upstreams.halfOpen, 'warn'),
  OPEN: () => badge(t().upstreams.open, 'bad'),
};

/** A slip API's last quota reading; a bank-direct domain has none to read. */
function quotaCell(u: Upstream): string {
  const m = t().upstreams;
  if (!u.readsQuota) return '—';
  if (u.quotaRemaining === null) return m.noReading;
  return formatCount(u.quotaRemaining);
}

export async function upstreamsPage(ctx: PageContext): Promise<void> {
  const m = t().upstreams;
  const body = h('section', { 'aria-labelledby': 'upstreams-h' });
  const updated = h('p', { class: 'hint', role: 'status', 'aria-live': 'polite' });
  const load = async () => {
    body.replaceChildren(h('h2', { id: 'upstreams-h', class: 'visually-hidden' }, m.heading), loading(m.loading));
    try {
      const { upstreams } = await gql<{ upstreams: Upstream[] }>(QUERY);
      if (!ctx.isCurrent()) return;
      body.lastChild?.remove();
      body.append(
        upstreams.length === 0
          ? empty(m.none)
          : dataTable(
              m.heading,
              [
                { label: m.name },
                { label: m.provider },
                { label: m.enabled },
                { label: m.weight, numeric: true },
                { label: m.priority, numeric: true },
                { label: m.serves },
                { label: m.quota, numeric: true },
                { label: m.breaker },
                { label: m.requests, numeric: true },
                { label: m.failures, numeric: true },
                { label: m.failureRate, numeric: true },
                { label: m.inARow, numeric: true },
                { label: m.p50, numeric: true },
                { label: m.p95, numeric: true },
                { label: m.byKind },
              ],
              upstreams.map((u) => [
                h('strong', { class: 'upstream-name' }, u.name),
                u.provider,
                u.enabled ? badge(m.on, 'ok') : badge(m.off, 'neutral'),
                String(u.weight),
                String(u.priority),
                u.usable ? badge(m.usable, 'ok') : h('span', {}, badge(m.unusable, 'bad'), ' ', h('span', { class: 'hint' }, u.unusableReason ?? '')),
                quotaCell(u),
                BREAKER[u.breaker](),
                formatCount(u.requests),
                formatCount(u.failures),
                u.requests ? `${((u.failures / u.requests) * 100).toFixed(1)}%` : '—',
                formatCount(u.consecutiveFailures),
                u.p50Ms == null ? '—' : formatMs(u.p50Ms),
                u.p95Ms == null ? '—' : formatMs(u.p95Ms),
                u.failuresByKind.filter((f) => f.count > 0).map((f) => h('span', { class: 'kind' }, `${errorKindLabel(f.kind)}: ${formatCount(f.count)}`)),
              ]),
              { captionHidden: true },
            ),
      );
      updated.textContent = m.updated(formatClock(new Date()));
    } catch (err) {
      if (!ctx.isCurrent()) return;
      body.lastChild?.remove();
      body.append(ctx.problem(err, () => void load()));
    }
  };
  ctx.main.append(pageHeading(t().nav.upstreams, h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: () => void load() }, m.refresh))), updated, body);
  await load();
}
