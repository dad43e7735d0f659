// Command-line flags of `npm run bench`.
import { availableParallelism } from 'node:os';

export const SCENARIO_IDS = ['A', 'B', 'C', 'D', 'E', 'I', 'H', 'F', 'R', 'L'] as const;
export type ScenarioId = (typeof SCENARIO_IDS)[number];
export const ENGINE_NAMES = ['sqlite', 'postgres', 'mongodb'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

export interface BenchArgs {
  quick: boolean;
  scenarios: ScenarioId[];
  engines: EngineName[];
  /** slipgate (and baseline) processes: `serve --workers N`. */
  workers: number;
  /** Also run scenario A once more under --cpu-prof and summarise it. */
  profile: boolean;
  /** Where the results file goes (default bench/results/<date>[-quick].md). */
  out: string | undefined;
  /** Keep the work directory (process logs, profiles) instead of deleting it. */
  keep: boolean;
  /** V8 old-space cap (MB) for slipgate and the baseline, as a container would set; unset = V8's default for the machine. */
  heapMb: number | undefined;
  /** Rounds of D then A on each engine, alternated, reported as medians (1 = the plain run); scenario L's rounds too. */
  repeat: number;
  /** A git revision whose slipgate also runs A in every round, to compare two versions in one run. */
  against: string | undefined;
  /** Verifications already stored for scenario H's long-history account. */
  history: number;
  /** Requests with bad API keys scenario F floods with. */
  flood: number;
  /** Seconds scenario F's flood lasts at most, whatever it sent by then; undefined: until it sent `flood`. */
  floodSeconds: number | undefined;
  /** Old verifications scenario R seeds before each of its retention passes. */
  retentionRecords: number;
  /** Besides A, A again with every bench account holding this receiver policy (off: only A, as before). */
  receiverPolicy: 'off' | 'report' | 'require';
  /** Besides A, A+pay: every verification pays a pending payment request made before the run (payments.ts). */
  payments: boolean;
  /** Besides A, A+hooks (every bench account with a webhook endpoint at a receiver process of the bench's own; webhooks.ts), A+drain (A beside a backlog of deliveries draining; drain-beside-a.ts) and W (the backlog drained alone; drain.ts). */
  webhooks: boolean;
  /** Besides A, A+recheck: A beside 1,000 slips being re-checked (rechecks.ts). */
  rechecks: boolean;
  /** Deliveries W and A+drain build up and drain; unset = drain.ts's default (smaller with --quick). */
  webhookBacklog: number | undefined;
  /** Write a results file from a tree with uncommitted changes (the file then says so). */
  allowDirty: boolean;
  /** slipgate (or the baseline) on half the CPUs, everything else on the others (pin.ts). */
  pin: boolean;
}

/** H and R seed a large history first and F sends a million requests, so they run only when asked for. */
const DEFAULT_SCENARIOS = SCENARIO_IDS.filter((id) => id !== 'H' && id !== 'F' && id !== 'R');
const RECEIVER_POLICIES = ['off', 'report', 'require'] as const;

const USAGE = `usage: npm run bench -- [--quick] [--scenario A,B,C,D,E,I,H,F,R,L] [--engine sqlite,postgres,mongodb]
                       [--workers N|auto] [--heap-mb N] [--repeat N [--against REV]] [--history N] [--flood N [--flood-seconds S]] [--profile] [--keep]
                       [--retention-records N] [--receiver-policy off|report|require] [--payments] [--webhooks [--webhook-backlog N]] [--rechecks] [--pin] [--out FILE] [--allow-dirty]`;

export function parseArgs(argv: string[]): BenchArgs {
  const args: BenchArgs = { quick: false, scenarios: [...DEFAULT_SCENARIOS], engines: [...ENGINE_NAMES], workers: 1, profile: false, out: undefined, keep: false, heapMb: undefined, repeat: 1, against: undefined, history: 1_000_000, flood: 1_000_000, floodSeconds: undefined, retentionRecords: 1_000_000, receiverPolicy: 'off', payments: false, webhooks: false, rechecks: false, webhookBacklog: undefined, allowDirty: false, pin: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) fail(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--quick':
        args.quick = true;
        break;
      case '--profile':
        args.profile = true;
        break;
      case '--keep':
        args.keep = true;
        break;
      case '--allow-dirty':
        args.allowDirty = true;
        break;
      case '--pin':
        args.pin = true;
        break;
      case '--payments':
        args.payments = true;
        break;
      case '--rechecks':
        args.rechecks = true;
        break;
      case '--webhooks':
        args.webhooks = true;
        break;
      case '--history': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 1 || n > 100_000_000) fail('--history must be a whole number of verifications from 1 to 100000000');
        args.history = n;
        break;
      }
      case '--flood': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 1 || n > 100_000_000) fail('--flood must be a whole number of requests from 1 to 100000000');
        args.flood = n;
        break;
      }
      case '--flood-seconds': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 1 || n > 86_400) fail('--flood-seconds must be a whole number of seconds from 1 to 86400');
        args.floodSeconds = n;
        break;
      }
      case '--webhook-backlog': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 1 || n > 1_000_000) fail('--webhook-backlog must be a whole number of deliveries from 1 to 1000000');
        args.webhookBacklog = n;
        break;
      }
      case '--retention-records': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 1 || n > 10_000_000) fail('--retention-records must be a whole number of verifications from 1 to 10000000');
        args.retentionRecords = n;
        break;
      }
      case '--receiver-policy': {
        const v = value();
        const policy = RECEIVER_POLICIES.find((p) => p === v);
        if (policy === undefined) fail(`--receiver-policy must be one of ${RECEIVER_POLICIES.join(', ')}, got ${v}`);
        args.receiverPolicy = policy;
        break;
      }
      case '--scenario':
      case '--scenarios':
        args.scenarios = list(value().toUpperCase(), SCENARIO_IDS, flag);
        break;
      case '--engine':
      case '--engines':
        args.engines = list(value().toLowerCase(), ENGINE_NAMES, flag);
        break;
      case '--workers': {
        const v = value();
        const n = v === 'auto' || v === '0' ? availableParallelism() : Number(v);
        if (!Number.isInteger(n) || n < 1) fail('--workers must be a whole number, or auto');
        args.workers = n;
        break;
      }
      case '--heap-mb': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 64) fail('--heap-mb must be a whole number of MB, at least 64');
        args.heapMb = n;
        break;
      }
      case '--repeat': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 1 || n > 50) fail('--repeat must be a whole number from 1 to 50');
        args.repeat = n;
        break;
      }
      case '--against':
        args.against = value();
        break;
      case '--out':
        args.out = value();
        break;
      case '--help':
      case '-h':
        console.log(USAGE);
        process.exit(0);
        break;
      default:
        fail(`unknown flag ${flag}`);
    }
  }
  if (args.receiverPolicy !== 'off' && !args.scenarios.includes('A')) fail('--receiver-policy runs A again under the policy: add A to --scenario');
  if (args.payments && !args.scenarios.includes('A')) fail('--payments runs A again paying payment requests: add A to --scenario');
  if (args.webhooks && !args.scenarios.includes('A')) fail('--webhooks runs A again with webhook endpoints: add A to --scenario');
  if (args.rechecks && !args.scenarios.includes('A')) fail('--rechecks runs A again beside slips being re-checked: add A to --scenario');
  if (args.webhookBacklog !== undefined && !args.webhooks) fail('--webhook-backlog sizes the backlog W drains: add --webhooks');
  // Both register receivers on the bench accounts, and a payment request names its receiver only when the account has one.
  if (args.payments && args.receiverPolicy !== 'off') fail('--payments and --receiver-policy each register a receiver on every bench account: run them separately');
  if (args.against !== undefined && args.repeat < 2) fail('--against compares alternated rounds: add --repeat N (N ≥ 2)');
  if (args.against !== undefined && args.engines.length > 1) fail('--against measures one engine: add --engine sqlite (or postgres, or mongodb)');
  return args;
}

const ALIASES: Record<string, string> = { mongo: 'mongodb', pg: 'postgres', postgresql: 'postgres' };

function list<T extends string>(raw: string, allowed: readonly T[], flag: string): T[] {
  const items = raw
    .split(',')
    .map((s) => ALIASES[s.trim()] ?? s.trim())
    .filter(Boolean);
  const bad = items.filter((s) => !allowed.includes(s as T));
  if (items.length === 0 || bad.length > 0) fail(`${flag}: expected some of ${allowed.join(',')}, got ${raw}`);
  return allowed.filter((a) => items.includes(a));
}

function fail(message: string): never {
  console.error(`bench: ${message}\n${USAGE}`);
  process.exit(2);
}
