// `slipgate simulate-bank`: a local stand-in for a bank verification network
// speaking the real KBank or SCB protocol, to run the gateway without a bank.
import { Option, type Command } from 'commander';
import { InputError } from '../domain/errors.js';
import { startSimulatedBank, type SimulatedProvider } from '../upstream/simulator.js';

interface SimulateBankFlags {
  provider: SimulatedProvider;
  port: string;
  host: string;
  latencyMs: string;
  errorRate: string;
}

export function registerSimulateBankCommand(program: Command): void {
  program
    .command('simulate-bank')
    .description('run a simulated bank verification network (KBank or SCB protocol) for local testing')
    .addOption(new Option('--provider <provider>', 'protocol to speak').choices(['kbank', 'scb']).makeOptionMandatory())
    .option('--port <port>', 'port to listen on (0 = any free port)', '9001')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--latency-ms <ms>', 'delay before every verify answer', '0')
    .option('--error-rate <share>', 'share of verify calls answered with HTTP 500, 0 to 1', '0')
    .action(async (flags: SimulateBankFlags) => {
      const port = wholeNumber(flags.port, '--port', 65_535);
      const latencyMs = wholeNumber(flags.latencyMs, '--latency-ms', 600_000);
      const errorRate = Number(flags.errorRate);
      if (flags.errorRate.trim() === '' || !(errorRate >= 0 && errorRate <= 1)) throw new InputError('--error-rate must be a number from 0 to 1, e.g. 0.05');

      const bank = await startSimulatedBank({ provider: flags.provider, port, host: flags.host, latencyMs, errorRate });
      const entry =
        bank.provider === 'kbank'
          ? { name: 'kbank-sim', provider: 'kbank', baseUrl: bank.url, clientId: bank.credentials.id, clientSecret: bank.credentials.secret }
          : { name: 'scb-sim', provider: 'scb', baseUrl: bank.url, apiKey: bank.credentials.id, apiSecret: bank.credentials.secret };
      console.log(`simulated ${bank.provider.toUpperCase()} verification network listening on ${bank.url}`);
      console.log(`latency ${latencyMs} ms, error rate ${errorRate}`);
      console.log('point slipgate at it with:');
      console.log(`  UPSTREAMS='${JSON.stringify([entry])}'`);

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

function wholeNumber(value: string, flag: string, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > max) throw new InputError(`${flag} must be a whole number from 0 to ${max}`);
  return n;
}
