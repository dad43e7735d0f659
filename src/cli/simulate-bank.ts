// `slipgate simulate-bank`: a local stand-in for a bank verification network
// speaking a registered provider's real protocol, to run the gateway without a bank.
import { Option, type Command } from 'commander';
import { InputError } from '../domain/errors.js';
import { simulatedProviders } from '../upstream/registry.js';
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
  quota?: string;
}

/** What every verify call answers, for outcomes a sandbox QR cannot ask for (the slip APIs' pending, seen-before and quota). */
const ANSWERS = ['normal', 'not_found', 'bank_error', 'malformed_json', 'pending', 'duplicate', 'quota_exceeded'] as const;

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
    .addOption(new Option('--answer <answer>', 'what every verify call answers (normal: as the QR asks)').choices(ANSWERS).default('normal'))
    .option('--quota <n>', 'slip APIs: verifications left on the key, then "quota used up" (default: no limit)')
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

  const answer = ANSWERS.find((a) => a === (flags.answer ?? 'normal'));
  if (!answer) throw new InputError(`--answer must be one of ${ANSWERS.join(', ')}`);
  const quota = flags.quota === undefined ? null : wholeNumber(flags.quota, '--quota', 1_000_000_000);

  const bank = await startSimulatedBank({ provider: flags.provider, port, host: flags.host, latencyMs, errorRate, behavior: { lateShare, lateSeconds, answer, quota } });
  const entry = bankSimulator(bank.provider).entry(bank.url, bank.credentials);
  print(`simulated ${bank.provider.toUpperCase()} verification network listening on ${bank.url}`);
  print(`latency ${latencyMs} ms, error rate ${errorRate}`);
  if (answer !== 'normal') print(`every verify call answers ${answer}`);
  if (quota !== null) print(`quota: ${quota} verifications`);
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
