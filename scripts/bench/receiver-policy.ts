// `--receiver-policy report|require`: A again with every bench account
// holding that receiver policy, beside A with the policy off, on the same
// database and the same slips. Each account registers the one receiver the
// bench's slips pay (a sandbox slip pins its receiver in its reference, as
// `slipgate sandbox qr --receiver` does), so every verification must still
// be a success: a refusal (1025) or an unmatched receiver means the setup
// is wrong, and the run stops rather than report figures of refusals.
import { ReceiverService } from '../../src/domain/receivers/operations.js';
import type { ReceiverPolicy } from '../../src/domain/types.js';
import { openStore } from '../../src/store/open.js';
import type { SandboxDetails } from '../../src/upstream/sandbox/sandbox-details.js';
import type { BenchDatabase } from './engines.js';
import type { LoadResult } from './load.js';
import type { Row } from './report.js';
import type { BenchRun } from './run.js';
import type { Scenario } from './scenarios.js';
import { median, fixed as f, totalCpuPerOk as cpu, okPerSec } from './figures.js';

/** The shop every bench account registers: an SCB account, under the name its bank prints. */
const RECEIVER = { bankCode: '014', account: '1233131090', nameTh: 'ร้าน ตัวอย่าง', nameEn: 'EXAMPLE SHOP' };

/** What a bench slip pins so the bank names RECEIVER as its receiver. */
export const PAID_TO_RECEIVER: SandboxDetails = { receiverAccount: RECEIVER.account, receiverBank: RECEIVER.bankCode, receiverName: RECEIVER.nameEn };

/** Answers that show the receiver setup is wrong (LoadSpec.marks). */
export const RECEIVER_MARKS = { refused: '"code":1025', unmatched: '"receiver":{"passed":false' };

/** A under --receiver-policy, or undefined when it is off. */
export function receiverVariant(run: BenchRun): Scenario | undefined {
  const policy = run.args.receiverPolicy;
  if (policy === 'off') return undefined;
  return { ...run.scenarios.A, id: `A+${policy}`, title: `as A, every account's receiver policy ${policy}`, receiverPolicy: policy };
}

/** Registers RECEIVER on each account of `db` that lacks it, then sets their policy (before a run: the server reads both fresh). */
export async function setReceiverPolicy(db: BenchDatabase, policy: ReceiverPolicy): Promise<void> {
  const store = await openStore(db.url);
  try {
    const receivers = new ReceiverService(store);
    const accounts = await store.listAccounts({ limit: 1000 });
    for (const account of accounts.items) {
      if ((await store.listReceivers(account.id)).length === 0) {
        await receivers.add({ accountId: account.id, bankCode: RECEIVER.bankCode, account: RECEIVER.account, nameTh: RECEIVER.nameTh, nameEn: RECEIVER.nameEn, label: 'bench' });
      }
      await receivers.setPolicy(account.id, policy);
    }
  } finally {
    await store.close();
  }
}

/** Throws when a run under a receiver policy got a refusal or an unmatched receiver. */
export function checkReceiverRun(scenario: Scenario, load: LoadResult, tag: string): void {
  if (scenario.receiverPolicy === undefined || scenario.receiverPolicy === 'off') return;
  const { refused = 0, unmatched = 0 } = load.marked;
  if (refused + unmatched > 0) {
    throw new Error(
      `${tag}: ${refused} answers refused with 1025 and ${unmatched} successes paid no registered receiver: the bench's receiver setup is wrong ` +
        `(every slip should pay ${RECEIVER.bankCode}/${RECEIVER.account}); e.g. ${load.failureSamples[0] ?? 'no failure sample'}`,
    );
  }
}


/** The bound (#33): A with a policy within 10% of A without. */
const MAX_POLICY_COST = 1.1;

interface Pair {
  engine: string;
  plain: Row;
  policy: Row;
}

/** A and A+policy of this tree on the same engine, round by round (a run without --repeat is one round). */
function pairs(rows: Row[]): Pair[] {
  const variants = rows.filter((r) => (r.scenario.id === 'A+report' || r.scenario.id === 'A+require') && !r.revision);
  return variants.flatMap((policy) => {
    const plain = rows.find((r) => r.scenario.id === 'A' && r.scenario.receiverPolicy === 'off' && !r.revision && r.engine === policy.engine && r.round === policy.round);
    return plain ? [{ engine: policy.engine, plain, policy }] : [];
  });
}

/** Markdown: per engine, A under the policy against A without, medians of the rounds and of the per-round ratios. */
export function receiverSummary(rows: Row[]): string[] {
  const all = pairs(rows);
  return [...new Set(all.map((p) => p.engine))].flatMap((engine) => {
    const mine = all.filter((p) => p.engine === engine);
    const id = mine[0]!.policy.scenario.id;
    const figure = (name: string, of: (r: Row) => number, digits: number) =>
      `| ${name} | ${f(median(mine.map((p) => of(p.policy))), digits)} | ${f(median(mine.map((p) => of(p.plain))), digits)} | ${f(median(mine.map((p) => of(p.policy) / of(p.plain))), 2)} |`;
    return [
      `## ${id} against A on ${engine} (${mine.length} rounds alternated, medians)`,
      '',
      `Every bench account registers one receiver and every slip pays it; A runs with the policy off, ${id} with \`${id.slice(2)}\`: the same slips and database.`,
      '',
      `| figure | ${id} | A | median of ratios per round |`,
      '|---|--:|--:|--:|',
      figure('CPU ms per success, slipgate + database', cpu, 3),
      figure('successes per second', okPerSec, 0),
      figure('p50 latency ms', (r) => r.load.latencyMs.p50, 2),
      figure('p99 latency ms', (r) => r.load.latencyMs.p99, 2),
      '',
    ];
  });
}

/** Target lines: CPU per success and successes per second within 10% of A's (medians of per-round ratios). */
export function receiverTargets(rows: Row[]): string[] {
  const all = pairs(rows);
  return [...new Set(all.map((p) => p.engine))].flatMap((engine) => {
    const mine = all.filter((p) => p.engine === engine);
    const cpuRatio = median(mine.map((p) => cpu(p.policy) / cpu(p.plain)));
    const rateRatio = median(mine.map((p) => okPerSec(p.policy) / okPerSec(p.plain)));
    const met = cpuRatio <= MAX_POLICY_COST && rateRatio >= 1 / MAX_POLICY_COST;
    return [
      `${mine[0]!.policy.scenario.id} on ${engine} within 10% of A (CPU per success ≤ ${MAX_POLICY_COST}×, successes per second ≥ ${f(1 / MAX_POLICY_COST, 2)}×; median of ${mine.length} rounds): ` +
        `${met ? '**met**' : '**MISSED**'}: CPU ${f(cpuRatio, 2)}×, successes per second ${f(rateRatio, 2)}×`,
    ];
  });
}
