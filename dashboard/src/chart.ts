// Usage per Bangkok day as an inline SVG bar chart (no chart library): three
// bars a day — successes, failures, credits spent — with a table twin for
// screen readers and anyone who wants the numbers.
import { h, svg } from './dom.js';
import { daysBetween, formatCount, formatDay, formatFullDay } from './format.js';
import { t } from './i18n/index.js';
import { dataTable } from './ui.js';

export interface UsageDay {
  day: string;
  successes: number;
  failures: number;
  creditsSpent: number;
}

const SERIES = [
  { key: 'successes', className: 'series-ok' },
  { key: 'failures', className: 'series-bad' },
  { key: 'creditsSpent', className: 'series-credits' },
] as const;

const seriesLabel = (key: (typeof SERIES)[number]['key']): string => t().chart[key];

const WIDTH = 960;
const HEIGHT = 230;
const MARGIN = { top: 14, right: 12, bottom: 34, left: 48 };

/** Smallest 1/2/5×10ⁿ step giving at most 4 grid lines. */
function niceMax(max: number): { top: number; step: number } {
  if (max <= 4) return { top: 4, step: 1 };
  const rough = max / 4;
  const pow = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= rough) ?? 10 * pow;
  return { top: Math.ceil(max / step) * step, step };
}

export function usageChart(rows: UsageDay[], firstDay: string, lastDay: string): HTMLElement {
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const days = daysBetween(firstDay, lastDay).map((day) => byDay.get(day) ?? { day, successes: 0, failures: 0, creditsSpent: 0 });
  const totals = { successes: 0, failures: 0, creditsSpent: 0 };
  for (const d of days) for (const s of SERIES) totals[s.key] += d[s.key];
  const { top, step } = niceMax(Math.max(0, ...days.flatMap((d) => SERIES.map((s) => d[s.key]))));

  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const slot = plotW / days.length;
  const barW = Math.max(2, (slot - 4) / SERIES.length);
  const y = (v: number) => MARGIN.top + plotH - (v / top) * plotH;

  const grid = [];
  for (let v = 0; v <= top; v += step) {
    grid.push(
      svg('line', { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y(v), y2: y(v), class: v === 0 ? 'axis' : 'grid' }),
      svg('text', { x: MARGIN.left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'tick' }, formatCount(v)),
    );
  }
  const labelEvery = Math.ceil(days.length / 10);
  const bars = days.map((d, i) => {
    const x0 = MARGIN.left + i * slot + 2;
    return svg(
      'g',
      {},
      SERIES.map((s, j) =>
        d[s.key] > 0
          ? svg(
              'rect',
              { x: x0 + j * barW, y: y(d[s.key]), width: barW - 1, height: y(0) - y(d[s.key]), class: s.className },
              svg('title', {}, t().chart.barTitle(formatDay(d.day), formatCount(d[s.key]), seriesLabel(s.key))),
            )
          : null,
      ),
      (days.length - 1 - i) % labelEvery === 0
        ? svg('text', { x: x0 + (slot - 4) / 2, y: HEIGHT - MARGIN.bottom + 18, 'text-anchor': 'middle', class: 'tick' }, formatDay(d.day))
        : null,
    );
  });

  const summary = t().chart.summary(formatDay(firstDay), formatDay(lastDay), formatCount(totals.successes), formatCount(totals.failures), formatCount(totals.creditsSpent), { ok: totals.successes, bad: totals.failures, spent: totals.creditsSpent });
  const idle = totals.successes + totals.failures === 0;

  return h(
    'figure',
    { class: 'chart' },
    h(
      'div',
      { class: 'legend', 'aria-hidden': 'true' },
      SERIES.map((s) => h('span', {}, h('i', { class: `swatch ${s.className}` }), `${seriesLabel(s.key)} (${formatCount(totals[s.key])})`)),
    ),
    svg(
      'svg',
      { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': t().chart.label(summary), preserveAspectRatio: 'xMidYMid meet' },
      grid,
      bars,
      idle ? svg('text', { x: MARGIN.left + plotW / 2, y: MARGIN.top + plotH / 2, 'text-anchor': 'middle', class: 'idle' }, t().chart.idle) : null,
    ),
    h('figcaption', {}, summary),
    h(
      'details',
      {},
      h('summary', {}, t().chart.showTable),
      idle
        ? h('p', { class: 'empty' }, t().chart.idleSentence)
        : dataTable(
            t().chart.tableCaption,
            [{ label: t().chart.day }, ...SERIES.map((s) => ({ label: seriesLabel(s.key), numeric: true }))],
            days.filter((d) => d.successes + d.failures > 0).map((d) => [formatFullDay(d.day), ...SERIES.map((s) => formatCount(d[s.key]))]),
          ),
    ),
  );
}
