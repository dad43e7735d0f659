// The shipped Grafana dashboard and alert rules name only metrics (and
// labels) that /metrics really serves, so they cannot drift apart silently.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMetricsRegistry, Metrics } from '../../src/metrics/metrics.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { scrape, type Scrape } from './scrape.js';

const DASHBOARD = new URL('../../docs/grafana/slipgate-dashboard.json', import.meta.url);
const ALERTS = new URL('../../docs/prometheus/slipgate-alerts.yml', import.meta.url);

/** Labels Prometheus adds or PromQL uses itself. */
const PROMETHEUS_LABELS = new Set(['job', 'instance', 'le']);
const PROMQL_WORDS = new Set(['sum', 'max', 'min', 'rate', 'increase', 'histogram_quantile', 'by', 'and', 'or', 'unless', 'up']);

/** Metric names in a PromQL expression (identifiers not inside quotes, braces or brackets, and not PromQL words). */
function metricNames(expr: string): string[] {
  const bare = expr.replace(/"[^"]*"/g, '""').replace(/\{[^}]*\}/g, '{}').replace(/\[[^\]]*\]/g, '[]').replace(/by \([^)]*\)/g, '');
  return [...bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)].map((m) => m[0]).filter((w) => !PROMQL_WORDS.has(w) && !/^\d/.test(w));
}

/** Label names in selectors and `by (…)` clauses. */
function labelNames(expr: string): string[] {
  const inSelectors = [...expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) => [...m[1]!.matchAll(/([a-zA-Z_]+)\s*(?:=~|!~|!=|=)/g)].map((l) => l[1]!));
  const grouped = [...expr.matchAll(/by \(([^)]*)\)/g)].flatMap((m) => m[1]!.split(',').map((l) => l.trim()));
  return [...inSelectors, ...grouped];
}

/** The metric family a sample name belongs to (histogram series end in _bucket/_sum/_count). */
function family(name: string, m: Scrape): string | undefined {
  if (m.types.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return m.types.get(base) === 'histogram' || m.types.get(base) === 'summary' ? base : undefined;
}

describe('Grafana dashboard and alert rules', () => {
  let app: TestApp;
  let m: Scrape;
  beforeAll(async () => {
    app = await startApp();
    const { apiKey } = await app.account(1);
    await app.verify(apiKey, 'not a slip');
    m = await scrape(app.adminUrl);
  });
  afterAll(() => app?.stop());

  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { title: string; panels: { type: string; title: string; targets?: { expr: string }[] }[] };
  const dashboardExprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
  const alertExprs = [...readFileSync(ALERTS, 'utf8').matchAll(/^\s+expr: (.+)$/gm)].map((l) => l[1]!);

  it('is valid JSON with panels that each query something', () => {
    expect(dashboard.title).toBe('slipgate');
    const graphs = dashboard.panels.filter((p) => p.type !== 'row');
    expect(graphs.length).toBeGreaterThanOrEqual(12);
    for (const p of graphs) expect(p.targets?.length, p.title).toBeGreaterThan(0);
    expect(alertExprs.length).toBeGreaterThanOrEqual(6);
  });

  it('names only metrics and labels /metrics serves', () => {
    // Labels of the series served, and those slipgate's metrics declare (some have no series until their event happens).
    const declared = [new Metrics().registry, defaultMetricsRegistry()].flatMap((r) => r.getMetricsAsArray()).flatMap((metric) => (metric as unknown as { labelNames: string[] }).labelNames);
    const labels = new Set([...m.samples.flatMap((s) => Object.keys(s.labels)), ...declared]);
    const used = new Set<string>();
    for (const expr of [...dashboardExprs, ...alertExprs]) {
      for (const name of metricNames(expr)) {
        if (name === 'up' || PROMQL_WORDS.has(name)) continue;
        const fam = family(name, m);
        expect(fam, `${name} in ${expr}`).toBeDefined();
        used.add(fam!);
      }
      for (const label of labelNames(expr)) {
        if (PROMETHEUS_LABELS.has(label)) continue;
        expect(labels.has(label), `label ${label} in ${expr}`).toBe(true);
      }
    }
    // Every slipgate metric has a place on the dashboard.
    const ours = [...m.types.keys()].filter((n) => n.startsWith('slipgate_'));
    expect(ours.filter((n) => !used.has(n))).toEqual([]);
    expect(metricNames('sum by (domain) (rate(slipgate_bank_requests_total{job=~"$job",outcome="x"}[5m]))')).toEqual(['slipgate_bank_requests_total']);
  });
});
