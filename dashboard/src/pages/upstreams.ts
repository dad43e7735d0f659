// Health of the bank network domains, as this slipgate process sees them.
import { gql } from '../api.js';
import { pageHeading, type PageContext } from '../context.js';
import { h } from '../dom.js';
import { formatCount } from '../format.js';
import { badge, dataTable, empty, loading } from '../ui.js';
import { errorKindLabel } from '../vocabulary.js';

interface Upstream {
  name: string;
  provider: string;
  enabled: boolean;
  weight: number;
  requests: number;
  failures: number;
  failuresByKind: { kind: string; count: number }[];
  consecutiveFailures: number;
  p50Ms: number | null;
  p95Ms: number | null;
  breaker: 'CLOSED' | 'OPEN' | 'HALF_OPEN';
}

const QUERY = `query Upstreams {
  upstreams { name provider enabled weight requests failures failuresByKind { kind count } consecutiveFailures p50Ms p95Ms breaker }
}`;

const BREAKER = {
  CLOSED: () => badge('closed · healthy', 'ok'),
  HALF_OPEN: () => badge('half-open · probing', 'warn'),
  OPEN: () => badge('open · skipped', 'bad'),
};

export async function upstreamsPage(ctx: PageContext): Promise<void> {
  const body = h('section', { 'aria-labelledby': 'upstreams-h' });
  const updated = h('p', { class: 'hint', role: 'status', 'aria-live': 'polite' });
  const load = async () => {
    body.replaceChildren(h('h2', { id: 'upstreams-h', class: 'visually-hidden' }, 'Bank network domains'), loading('upstream health'));
    try {
      const { upstreams } = await gql<{ upstreams: Upstream[] }>(QUERY);
      if (!ctx.isCurrent()) return;
      body.lastChild?.remove();
      body.append(
        upstreams.length === 0
          ? empty('No bank network domains are configured.')
          : dataTable(
              'Bank network domains',
              [
                { label: 'Name' },
                { label: 'Provider' },
                { label: 'Enabled' },
                { label: 'Weight', numeric: true },
                { label: 'Breaker' },
                { label: 'Requests', numeric: true },
                { label: 'Failures', numeric: true },
                { label: 'Failure rate', numeric: true },
                { label: 'In a row', numeric: true },
                { label: 'p50', numeric: true },
                { label: 'p95', numeric: true },
                { label: 'Failures by kind' },
              ],
              upstreams.map((u) => [
                h('strong', { class: 'upstream-name' }, u.name),
                u.provider,
                u.enabled ? badge('enabled', 'ok') : badge('disabled', 'neutral'),
                String(u.weight),
                BREAKER[u.breaker](),
                formatCount(u.requests),
                formatCount(u.failures),
                u.requests ? `${((u.failures / u.requests) * 100).toFixed(1)}%` : '—',
                formatCount(u.consecutiveFailures),
                u.p50Ms == null ? '—' : `${formatCount(u.p50Ms)} ms`,
                u.p95Ms == null ? '—' : `${formatCount(u.p95Ms)} ms`,
                u.failuresByKind.filter((f) => f.count > 0).map((f) => h('span', { class: 'kind' }, `${errorKindLabel(f.kind)}: ${formatCount(f.count)}`)),
              ]),
              { captionHidden: true },
            ),
      );
      updated.textContent = `Updated ${new Date().toLocaleTimeString('en-GB', { timeZone: 'Asia/Bangkok', hourCycle: 'h23' })} (Bangkok). Counters are per slipgate process since it started.`;
    } catch (err) {
      if (!ctx.isCurrent()) return;
      body.lastChild?.remove();
      body.append(ctx.problem(err, () => void load()));
    }
  };
  ctx.main.append(pageHeading('Upstreams', h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: () => void load() }, 'Refresh'))), updated, body);
  await load();
}
