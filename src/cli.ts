#!/usr/bin/env node
// `slipgate` command line: the server (`serve`, what `npm start` runs) and
// the operator commands. All of them use the same DATABASE_URL.
// Exit status, the same for every command: 0 done; 1 the command ran and
// reports a failure (a verification that did not succeed, a discrepancy);
// 2 a usage or input error (nothing was changed); 3 slipgate could not be
// reached (`verify`); 75 `serve` stopped because its store failed
// (cli/exit-codes.ts).
import { Command, CommanderError } from 'commander';
import { registerAccountCommands } from './cli/accounts.js';
import { registerAdminTokenCommands } from './cli/admin-tokens.js';
import { registerAuditCommands } from './cli/audit.js';
import { registerBackupCommand } from './cli/backup.js';
import { registerDoctorCommand } from './cli/doctor.js';
import { registerRetentionCommands } from './cli/retention.js';
import { registerExportCommand } from './cli/export.js';
import { registerRestoreCommand } from './cli/restore.js';
import { registerSandboxCommands } from './cli/sandbox.js';
import { registerServeCommand } from './cli/serve.js';
import { registerSimulateBankCommand } from './cli/simulate-bank.js';
import { registerVerifyCommand } from './cli/verify.js';
import { setActorOption } from './cli/context.js';
import { ConfigError } from './config.js';
import { InputError } from './domain/errors.js';
import { IdempotencyConflictError } from './domain/admin-actions.js';
import { StoreError } from './domain/ports/store.js';
import { DatabaseOpenError } from './store/open.js';
import { NewerSchemaError } from './store/schema-version.js';
import { versionLine } from './version.js';

const program = new Command('slipgate')
  .description('Thai bank slip verification gateway')
  .version(versionLine(), '-V, --version', 'print the version and the git revision it was built from')
  .option('--as <name>', 'the staff member making the change, as the ledger and admin events name it (default: SLIPGATE_ACTOR, then SUDO_USER, then the system user)')
  .showHelpAfterError()
  .exitOverride()
  .hook('preAction', (root) => setActorOption(root.opts<{ as?: string }>().as));

registerServeCommand(program);
registerAccountCommands(program);
registerAdminTokenCommands(program);
registerAuditCommands(program);
registerExportCommand(program);
registerDoctorCommand(program);
registerRetentionCommands(program);
registerBackupCommand(program);
registerRestoreCommand(program);
registerSandboxCommands(program);
registerSimulateBankCommand(program);
registerVerifyCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  // Commander's own errors (unknown option, missing argument) are usage errors too.
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
  if (err instanceof ConfigError || err instanceof InputError || err instanceof IdempotencyConflictError || err instanceof StoreError || err instanceof DatabaseOpenError || err instanceof NewerSchemaError) {
    console.error(`slipgate: ${err.message}`);
    process.exit(2);
  }
  throw err;
}
