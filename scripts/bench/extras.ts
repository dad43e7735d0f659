// A's variants that need more than a flag on the accounts: A+pay
// (payments.ts), A+hooks (webhooks.ts), A+drain (drain-beside-a.ts) and A+recheck (rechecks.ts). Each adds set-up around one
// measured run (phases.ts measure) and figures to its row.
import { drainBesideExtras, drainVariant } from './drain-beside-a.js';
import type { BenchDatabase } from './engines.js';
import type { LoadResult, LoadSpec } from './load.js';
import { paymentExtras, paymentVariant } from './payments.js';
import { receiverVariant } from './receiver-policy.js';
import type { Row } from './report.js';
import type { BenchRun } from './run.js';
import type { Scenario } from './scenarios.js';
import { webhookExtras, webhookVariants } from './webhooks.js';
import { recheckExtras, recheckVariant } from './rechecks.js';

export interface RunExtras {
  /** slipgate is ready, nothing sent yet: what the load sends instead of A's bodies, and answers to count. */
  ready?(url: string): Promise<Partial<LoadSpec>>;
  /** Between the warm-up (undefined without one) and the measured run. */
  warmedUp?(warmup: LoadResult | undefined): Promise<void>;
  /** After the measured run, slipgate still up: figures (and corrections) for the row. */
  measured?(result: LoadResult): Promise<Partial<Row>>;
  /** After the processes stopped, also when the run failed. */
  close?(): Promise<void>;
}

/** The set-up a scenario asks for, made before slipgate starts; undefined for A and the others. */
export function extrasFor(run: BenchRun, scenario: Scenario, engine: string, db: BenchDatabase | null, keys: string[]): Promise<RunExtras> | undefined {
  if (scenario.payments) return paymentExtras(run, scenario, engine, db!, keys);
  if (scenario.webhooks) return webhookExtras(run, scenario, db!);
  if (scenario.drain) return drainBesideExtras(run, scenario, engine, db!, keys);
  if (scenario.rechecks) return Promise.resolve(recheckExtras(run, scenario, engine, db!, keys));
  return undefined;
}

/** A under each flag given (--receiver-policy, --payments, --webhooks: A+hooks and A+drain), in the order they run after A in a round. */
export function aVariants(run: BenchRun): Scenario[] {
  return [receiverVariant(run), paymentVariant(run), ...webhookVariants(run), drainVariant(run), recheckVariant(run)].filter((s): s is Scenario => s !== undefined);
}
