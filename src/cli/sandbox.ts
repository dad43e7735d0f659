// `slipgate sandbox qr`: a slip QR the built-in sandbox network accepts.
import { Option, type Command } from 'commander';
import { InputError } from '../domain/errors.js';
import { sandboxQr } from '../upstream/sandbox/sandbox-qr.js';
import type { SandboxOutcome } from '../upstream/sandbox/transaction.js';

export function registerSandboxCommands(program: Command): void {
  const sandbox = program.command('sandbox').description('tools for the built-in sandbox network');
  sandbox
    .command('qr')
    .description('print a valid slip QR payload the sandbox answers')
    .option('--bank <code>', 'sending bank code (3 digits)', '004')
    .option('--amount <thb>', 'amount the sandbox reports, e.g. 250.00', '100.00')
    .addOption(new Option('--outcome <outcome>', 'what the sandbox answers').choices(['success', 'not-found', 'error', 'timeout']).default('success'))
    .action((opts: { bank: string; amount: string; outcome: SandboxOutcome }) => {
      if (!/^\d{3}$/.test(opts.bank)) throw new InputError('--bank must be a 3-digit bank code such as 004');
      if (!/^\d{1,8}(\.\d{1,2})?$/.test(opts.amount)) throw new InputError('--amount must look like 250 or 250.00');
      console.log(sandboxQr({ bank: opts.bank, amount: Number(opts.amount), outcome: opts.outcome }));
    });
}
