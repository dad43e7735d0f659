// `slipgate simulate-bank`: a local stand-in for a bank verification network
// speaking a registered provider's real protocol, to run the gateway without a bank.
import { Option, type Command } from 'commander';
import { InputError } from '../domain/errors.js';
import { simulatedProviders } from '../upstream/registry.js';
import type { BankBehavior } from '../upstream/simulator/bank-state.js';
import { bankSimulator, startSimulatedBank, type SimulatedBank } from '../upstream/simulator/simulated-bank.js';

export interface SimulateBankFlags {
  provider: string;
  port: string;
  host: string;
  latencyMs: string;
  errorRate: string;
  lateShare?: string;
  lateSeconds?: string;
  answer?: string;
  pendingMinutes?: string;
  quota?: string;
}

/** What `--answer` may make every verify call answer (kebab case of the state's answers). */
const ANSWERS = ['normal', 'not-found', 'bank-error', 'pending', 'quota-exceeded', 'key-refused', 'duplicate'] as const;
type Answer = (typeof ANSWERS)[number];

export function registerSimulateBankCommand(program: Command): void {
  const providers = simulatedProviders().map((p) => p.id);
  program
    .command('simulate-bank')
    .description(`run a simulated bank verification network (${providers.join(', ')}) for local testing`)
    .addOption(new Option('--provider <provider>', 'protocol to speak').choices(providers).makeOptionMandatory())
    .option('--port <port>', 'port to listen on (0 = any free port)', '9001')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--latency-ms <ms>', 'delay before every verify answer', '0')
    .option('--error-rate <share>', 'share of verify calls answered with HTTP 500, 0 to 1', '0')
    .option('--late-share <share>', 'share of transactions published late (the same ones on every call, picked by a hash of their reference), 0 to 1', '0')
    .option('--late-seconds <s>', 'a late transaction is answered "not found" until this many seconds after it was first asked about', '60')
    .addOption(
      new Option('--answer <answer>', 'what every verify call answers (slip APIs: pending, quota-exceeded, key-refused, duplicate in their own codes)').choices(ANSWERS).default('normal'),
    )
    .option('--pending-minutes <m>', 'SlipOK: the delay its pending answer names, in minutes (the other slip APIs name none)', '1')
    .option('--quota <n>', 'slip APIs: verifications left on the package, each success spends one (default: no limit)')
    .action(async (flags: SimulateBankFlags) => {
      const bank = await simulateBank(flags, (line) => console.log(line));
      const stop = () => {
        bank.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}

/** Starts the simulator the flags describe and prints how to point slipgate at it. */
export async function simulateBank(flags: SimulateBankFlags, print: (line: string) => void): Promise<SimulatedBank> {
  const port = wholeNumber(flags.port, '--port', 65_535);
  const latencyMs = wholeNumber(flags.latencyMs, '--latency-ms', 600_000);
  const errorRate = share(flags.errorRate, '--error-rate', '0.05');
  const lateShare = share(flags.lateShare ?? '0', '--late-share', '0.2');
  const lateSeconds = wholeNumber(flags.lateSeconds ?? '60', '--late-seconds', 86_400);
  const answer = (flags.answer ?? 'normal') as Answer;
  if (!ANSWERS.includes(answer)) throw new InputError(`--answer must be one of ${ANSWERS.join(', ')}`);
  const pendingMinutes = wholeNumber(flags.pendingMinutes ?? '1', '--pending-minutes', 1_440);
  const quota = flags.quota === undefined ? null : wholeNumber(flags.quota, '--quota', 1_000_000_000);

  const behavior = { lateShare, lateSeconds, answer: answer.replaceAll('-', '_') as BankBehavior['answer'], pendingMinutes, quota };
  const bank = await startSimulatedBank({ provider: flags.provider, port, host: flags.host, latencyMs, errorRate, behavior });
  const entry = bankSimulator(bank.provider).entry(bank.url, bank.credentials);
  print(`simulated ${bank.provider.toUpperCase()} verification network listening on ${bank.url}`);
  print(`latency ${latencyMs} ms, error rate ${errorRate}`);
  if (answer !== 'normal') print(`every verify call answers ${answer}${answer === 'pending' ? ` (ask again in ${pendingMinutes} min)` : ''}`);
  if (quota !== null) print(`quota: ${quota} verifications, then the quota-used-up answer`);
  if (lateShare > 0) print(`late share ${lateShare}: those transactions are "not found" for ${lateSeconds} s after first asked about`);
  print('point slipgate at it with:');
  print(`  UPSTREAMS='${JSON.stringify([entry])}'`);
  return bank;
}

function share(value: string, flag: string, example: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n >= 0 && n <= 1)) throw new InputError(`${flag} must be a number from 0 to 1, e.g. ${example}`);
  return n;
}

function wholeNumber(value: string, flag: string, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > max) throw new InputError(`${flag} must be a whole number from 0 to ${max}`);
  return n;
}
