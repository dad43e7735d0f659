// Writes docs/grafana/slipgate-dashboard.json from the metric names /metrics
// serves (test/metrics/grafana.test.ts checks them against a live scrape).
//   node scripts/grafana-dashboard.mjs
import { writeFileSync } from 'node:fs';
const ds = { type: 'prometheus', uid: '${datasource}' };
const panels = [];
let id = 0;
const W = '$__rate_interval';
const sel = (extra = '') => `{job=~"$job"${extra ? `,${extra}` : ''}}`;
function panel(title, targets, x, y, { w = 12, h = 8, kind = 'timeseries', unit = 'short', desc = '' } = {}) {
  panels.push({
    id: ++id, type: kind, title, description: desc, datasource: ds,
    gridPos: { x, y, w, h },
    fieldConfig: { defaults: { unit }, overrides: [] },
    options: {},
    targets: targets.map(([expr, legendFormat], i) => ({ refId: String.fromCharCode(65 + i), datasource: ds, expr, legendFormat })),
  });
}
const row = (title, y) => panels.push({ id: ++id, type: 'row', title, collapsed: false, gridPos: { x: 0, y, w: 24, h: 1 }, panels: [] });
const NETWORK_FAILURE = 'outcome=~"upstream_timeout|upstream_unavailable|upstream_error|upstream_mismatch|unavailable|outcome_unknown"';
const REACHED = 'result=~"success|failure"';
let y = 0;
row('Verifications', y++);
panel('Verifications per second by outcome', [[`sum by (outcome) (rate(slipgate_verifications_total${sel()}[${W}]))`, '{{outcome}}']], 0, y, { unit: 'reqps',
  desc: 'Every answer of POST /api/v1/verify. success is charged; slip_not_found, invalid_qr and upstream_* are free failures; account errors carry code 1020-1023.' });
panel('Network failure ratio', [[`sum(rate(slipgate_verifications_total${sel(NETWORK_FAILURE)}[${W}])) / sum(rate(slipgate_verifications_total${sel('outcome!~"rate_limited|busy"')}[${W}]))`, 'failure ratio']], 12, y, { unit: 'percentunit',
  desc: 'Share of verifications that failed because of the bank network or slipgate itself, not the caller.' });
y += 8;
panel('Verification latency (p50, p95, p99)', [0.5, 0.95, 0.99].map((q) => [`histogram_quantile(${q}, sum by (le) (rate(slipgate_verification_duration_seconds_bucket${sel(REACHED)}[${W}])))`, `p${q * 100}`]), 0, y, { unit: 's',
  desc: 'Request to answer, for verifications that reached the bank network (success or failure).' });
panel('Account errors and 429s', [
  [`sum by (outcome, code) (rate(slipgate_verifications_total${sel('code!=""')}[${W}]))`, '{{code}} {{outcome}}'],
  [`sum by (reason) (rate(slipgate_requests_refused_total${sel()}[${W}]))`, '429 {{reason}}'],
], 12, y, { unit: 'reqps', desc: '1020 missing key, 1021 invalid key, 1022 user not found, 1023 insufficient fund; 429s by limit (per IP, per key, in-flight cap).' });
y += 8;
row('Bank network', y++);
panel('Bank requests per second by domain and outcome', [[`sum by (domain, outcome) (rate(slipgate_bank_requests_total${sel()}[${W}]))`, '{{domain}} {{outcome}}']], 0, y, { unit: 'reqps',
  desc: 'Each request to a domain, failover attempts included.' });
panel('Bank latency p99 by domain', [[`histogram_quantile(0.99, sum by (domain, le) (rate(slipgate_bank_request_duration_seconds_bucket${sel()}[${W}])))`, '{{domain}}']], 12, y, { unit: 's' });
y += 8;
panel('Circuit breakers (processes)', [
  [`sum by (domain) (slipgate_bank_breaker_state${sel('state="open"')})`, '{{domain}} open'],
  [`sum by (domain) (slipgate_bank_breaker_state${sel('state="half_open"')})`, '{{domain}} half-open'],
], 0, y, { desc: 'How many slipgate processes skip the domain (open) or probe it (half-open) now. 0 is healthy.' });
panel('Bank failure ratio by domain', [[`sum by (domain) (rate(slipgate_bank_requests_total${sel('outcome=~"upstream_.*"')}[${W}])) / sum by (domain) (rate(slipgate_bank_requests_total${sel()}[${W}]))`, '{{domain}}']], 12, y, { unit: 'percentunit',
  desc: 'Timeouts, errors and unreachable per domain; slip_not_found is a normal answer and not counted.' });
y += 8;
row('Credits', y++);
panel('Credits held now', [[`max(slipgate_credits_held${sel()})`, 'held']], 0, y, { w: 6, kind: 'stat', desc: 'Credits held by verifications in flight, read from the store at scrape time.' });
panel('Oldest hold age', [[`max(slipgate_oldest_hold_age_seconds${sel()})`, 'oldest hold']], 6, y, { w: 6, kind: 'stat', unit: 's',
  desc: 'A hold lasts at most UPSTREAM_TIMEOUT_MS; one left by a dead process is recovered after HOLD_STALE_MS.' });
panel('Hold recoveries (last hour)', [[`sum by (result) (increase(slipgate_hold_recoveries_total${sel()}[1h]))`, '{{result}}']], 12, y, { w: 12,
  desc: 'Holds left by a process that died: settled (its success was recorded, charged) or released (refunded).' });
y += 8;
row('Slip pictures', y++);
panel('Pictures on the worker threads', [[`sum by (state) (slipgate_image_pool${sel()})`, '{{state}}']], 0, y, {
  desc: 'Pictures being read (running) and waiting for a thread (queued); a queue at IMAGE_QUEUE_MAX answers 429.' });
panel('Pictures per second', [[`sum by (result) (rate(slipgate_image_decodes_total${sel()}[${W}]))`, '{{result}}']], 12, y, { unit: 'reqps',
  desc: 'decoded: handed to a thread; busy: refused with 429 (queue full); timeout: over IMAGE_DECODE_TIMEOUT_MS.' });
y += 8;
row('Store and process', y++);
panel('Store latency p99 by operation', [[`histogram_quantile(0.99, sum by (operation, le) (rate(slipgate_store_operation_duration_seconds_bucket${sel()}[${W}])))`, '{{operation}}']], 0, y, { unit: 's' });
panel('Store errors per second', [[`sum by (operation) (rate(slipgate_store_operation_duration_seconds_count${sel('result="error"')}[${W}]))`, '{{operation}}']], 12, y, { unit: 'reqps' });
y += 8;
panel('Event-loop delay p99', [[`max(nodejs_eventloop_lag_p99_seconds${sel()})`, 'p99']], 0, y, { w: 8, unit: 's' });
panel('Memory', [[`sum(nodejs_heap_size_used_bytes${sel()})`, 'heap used'], [`sum(process_resident_memory_bytes${sel()})`, 'resident']], 8, y, { w: 8, unit: 'bytes' });
panel('GC time per second', [[`sum by (kind) (rate(nodejs_gc_duration_seconds_sum${sel()}[${W}]))`, '{{kind}}']], 16, y, { w: 8, unit: 's' });
y += 8;
panel('Processes reporting', [[`sum(slipgate_processes${sel()})`, 'processes']], 0, y, { w: 6, kind: 'stat', desc: '1 per slipgate process; the worker count with serve --workers N.' });
panel('LINE events per second by outcome', [[`sum by (outcome) (rate(slipgate_line_events_total${sel()}[${W}]))`, '{{outcome}}']], 6, y, { w: 18, unit: 'reqps',
  desc: 'Messages from LINE chats (docs/line.md) by what the customer was answered (verified, duplicate, not_found, unreadable…) or what became of them (redelivery, ignored, error).' });
y += 8;
row('Webhooks', y++);
panel('Webhook attempts per second by result', [[`sum by (result) (rate(slipgate_webhook_attempts_total${sel()}[${W}]))`, '{{result}}']], 0, y, { unit: 'reqps',
  desc: 'Attempts to deliver signed webhooks: delivered (2xx), retry (failed, scheduled again) or failed (given up after the retry window; redeliver by hand). A steady retry rate means an endpoint is down.' });
y += 8;
row('Re-checks', y++);
panel('Slips being re-checked', [[`max(slipgate_rechecks_pending${sel()})`, 'pending']], 0, y, { w: 6, kind: 'stat',
  desc: 'Slips the bank did not know yet, kept and asked again until RECHECK_MINUTES (docs/payments.md#re-checks), as the last re-check pass counted them. Each costs a bank call per attempt.' });
panel('Re-check attempts and outcomes per second', [
  [`sum by (result) (rate(slipgate_recheck_attempts_total${sel()}[${W}]))`, 'attempt {{result}}'],
  [`sum by (outcome) (rate(slipgate_rechecks_finished_total${sel()}[${W}]))`, 'finished {{outcome}}'],
], 6, y, { w: 18, unit: 'reqps',
  desc: 'Attempts by what the bank said (confirmed, not_found, bank_failure, no_credit, busy) and re-checks finished by outcome (verified, refused, superseded, unconfirmed, no_credit). Many unconfirmed: a bank publishes later than RECHECK_MINUTES, or not at all.' });

const dashboard = {
  title: 'slipgate',
  uid: 'slipgate-overview',
  description: 'slipgate verifications, bank network, credits and store, from GET /metrics on the admin listener.',
  tags: ['slipgate'],
  timezone: 'Asia/Bangkok',
  schemaVersion: 39,
  version: 1,
  editable: true,
  refresh: '30s',
  time: { from: 'now-6h', to: 'now' },
  templating: {
    list: [
      { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', current: {} },
      { name: 'job', label: 'Job', type: 'query', datasource: ds, query: 'label_values(slipgate_processes, job)', refresh: 2, includeAll: true, multi: true, current: {} },
    ],
  },
  annotations: { list: [] },
  panels,
};
writeFileSync('docs/grafana/slipgate-dashboard.json', `${JSON.stringify(dashboard, null, 2)}\n`);
