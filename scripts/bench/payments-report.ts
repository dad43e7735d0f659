// A+pay in the results: per engine, CPU per paid request against A's CPU per
// success from the same round (medians of the rounds and of the per-round
// ratios), and the issue's target (#34) judged on them.
import type { Row } from './report.js';
import { median, fixed as f, totalCpuPerOk as cpu, okPerSec } from './figures.js';

/** The issue's bound (#34): a paid request costs at most 1.3× a plain verification. */
const MAX_PAID_COST = 1.3;

/** Slipgate + database; on A+pay its successes are the paid answers (payments.ts paidLoad), so this is CPU per paid request. */
const notPaid = (r: Row) => r.payments?.notPaid ?? 0;
/** The answers' reasons, and requests sent after the pool ran out. */
function unpaidWhy(r: Row): string {
  const parts = Object.entries(r.payments?.reasons ?? {}).map(([reason, n]) => `${reason} ×${n}`);
  if (r.payments?.ranOut) parts.push(`${r.payments.ranOut} sent after the pending requests ran out`);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

interface Pair {
  engine: string;
  plain: Row;
  pay: Row;
}

/** A+pay and A of this tree on the same engine, round by round (a run without --repeat is one round). */
function pairs(rows: Row[]): Pair[] {
  return rows
    .filter((r) => r.scenario.id === 'A+pay' && !r.revision)
    .flatMap((pay) => {
      const plain = rows.find((r) => r.scenario.id === 'A' && !r.revision && !r.profiled && r.engine === pay.engine && r.round === pay.round);
      return plain ? [{ engine: pay.engine, plain, pay }] : [];
    });
}

const byEngine = (all: Pair[]) => [...new Set(all.map((p) => p.engine))].map((engine) => ({ engine, mine: all.filter((p) => p.engine === engine) }));

/** Markdown: per engine, A+pay against A. */
export function paymentSection(rows: Row[]): string[] {
  return byEngine(pairs(rows)).flatMap(({ engine, mine }) => {
    const figure = (name: string, of: (r: Row) => number, digits: number) =>
      `| ${name} | ${f(median(mine.map((p) => of(p.pay))), digits)} | ${f(median(mine.map((p) => of(p.plain))), digits)} | ${f(median(mine.map((p) => of(p.pay) / of(p.plain))), 2)} |`;
    const unpaid = mine.reduce((sum, p) => sum + notPaid(p.pay), 0);
    return [
      `## A+pay against A on ${engine} (${mine.length} rounds alternated, medians)`,
      '',
      'Every bench account registers one PromptPay receiver. Before each A+pay run (not measured) pending payment requests are made',
      'through `POST /api/v1/payment-requests`, and every verification of the run names one, with a slip that pays it: its receiver,',
      'its amount and a transfer time inside its window. A+pay counts as successes only the answers whose `paymentRequest.status` is `paid`.',
      '',
      '| figure | A+pay | A | median of ratios per round |',
      '|---|--:|--:|--:|',
      figure('CPU ms per paid request (A: per success), slipgate + database', cpu, 3),
      figure('paid requests (A: successes) per second', okPerSec, 0),
      figure('p50 latency ms', (r) => r.load.latencyMs.p50, 2),
      figure('p99 latency ms', (r) => r.load.latencyMs.p99, 2),
      '',
      unpaid === 0
        ? `Every answer of every A+pay run paid its request (${mine.map((p) => p.pay.payments?.paid ?? 0).join(', ')} paid).`
        : `**${unpaid} answers did not pay their request**: those runs failed (${mine.map((p) => `round ${p.pay.round ?? 1}: ${notPaid(p.pay)}${unpaidWhy(p.pay)}`).join('; ')}).`,
      '',
    ];
  });
}

/** Target lines: CPU per paid request ≤ 1.3× A's per success (median of per-round ratios), and every answer paid. */
export function paymentTargets(rows: Row[]): string[] {
  return byEngine(pairs(rows)).map(({ engine, mine }) => {
    const ratio = median(mine.map((p) => cpu(p.pay) / cpu(p.plain)));
    const unpaid = mine.reduce((sum, p) => sum + notPaid(p.pay), 0);
    const met = ratio <= MAX_PAID_COST && unpaid === 0;
    return (
      `A+pay on ${engine}, CPU per paid request ≤ ${MAX_PAID_COST}× A's CPU per success (median of ${mine.length} rounds): ${met ? '**met**' : '**MISSED**'}: ${f(ratio, 2)}×` +
      (unpaid > 0 ? `; **failed run: ${unpaid} answers did not pay**` : '')
    );
  });
}
