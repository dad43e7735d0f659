#!/usr/bin/env node
// `slipgate` command line: the server (`serve`, what `npm start` runs) and
// the operator commands. All of them use the same DATABASE_URL.
import { Command, CommanderError } from 'commander';
import { registerAccountCommands } from './cli/accounts.js';
import { registerAdminTokenCommands } from './cli/admin-tokens.js';
import { registerAuditCommands } from './cli/audit.js';
import { registerDoctorCommand } from './cli/doctor.js';
import { registerSandboxCommands } from './cli/sandbox.js';
import { registerServeCommand } from './cli/serve.js';
import { registerSimulateBankCommand } from './cli/simulate-bank.js';
import { registerVerifyCommand } from './cli/verify.js';
import { ConfigError } from './config.js';
import { InputError } from './domain/errors.js';
import { IdempotencyConflictError } from './domain/admin-actions.js';
import { StoreError } from './domain/ports/store.js';
import { DatabaseOpenError } from './store/open.js';
import { packageVersion } from './version.js';

const program = new Command('slipgate')
  .description('Thai bank slip verification gateway')
  .version(packageVersion(), '-V, --version', 'print the version')
  .showHelpAfterError()
  .exitOverride();

registerServeCommand(program);
registerAccountCommands(program);
registerAdminTokenCommands(program);
registerAuditCommands(program);
registerDoctorCommand(program);
registerSandboxCommands(program);
registerSimulateBankCommand(program);
registerVerifyCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  if (err instanceof ConfigError || err instanceof InputError || err instanceof IdempotencyConflictError || err instanceof StoreError || err instanceof DatabaseOpenError) {
    console.error(`slipgate: ${err.message}`);
    process.exit(2);
  }
  throw err;
}
