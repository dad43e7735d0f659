// The `slipgate` program with every command registered, built without
// running it: src/cli.ts parses the command line with it, and docs/cli.md is
// generated from its own help (scripts/docs-reference.ts).
import { Command } from 'commander';
import { versionLine } from '../version.js';
import { registerAccountCommands } from './accounts.js';
import { registerAdminTokenCommands } from './admin-tokens.js';
import { registerAuditCommands } from './audit.js';
import { registerBackupCommand } from './backup.js';
import { setActorOption } from './context.js';
import { registerDoctorCommand } from './doctor.js';
import { registerExportCommand } from './export.js';
import { registerPaymentCommands } from './payments.js';
import { registerLineCommands } from './line.js';
import { registerReceiverCommands } from './receivers.js';
import { registerRestoreCommand } from './restore.js';
import { registerRetentionCommands } from './retention.js';
import { registerSandboxCommands } from './sandbox.js';
import { registerServeCommand } from './serve.js';
import { registerSimulateBankCommand } from './simulate-bank.js';
import { registerSimulateLineCommand } from './simulate-line.js';
import { registerVerifyCommand } from './verify.js';
import { registerWebhookCommands } from './webhooks.js';

export function slipgateProgram(): Command {
  const program = new Command('slipgate')
    .description('Thai bank slip verification gateway')
    .version(versionLine(), '-V, --version', 'print the version and the git revision it was built from')
    .option('--as <name>', 'the staff member making the change, as the ledger and admin events name it (default: SLIPGATE_ACTOR, then SUDO_USER, then the system user)')
    .showHelpAfterError()
    .exitOverride()
    .hook('preAction', (root) => setActorOption(root.opts<{ as?: string }>().as));
  registerServeCommand(program);
  registerAccountCommands(program);
  registerReceiverCommands(program);
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
  registerWebhookCommands(program);
  registerPaymentCommands(program);
  registerLineCommands(program);
  registerSimulateLineCommand(program);
  return program;
}
