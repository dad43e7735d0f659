#!/usr/bin/env node
// `slipgate` command line: the server (`serve`, what `npm start` runs) and
// the operator commands. All of them use the same DATABASE_URL.
// Exit status, the same for every command: 0 done; 1 the command ran and
// reports a failure (a verification that did not succeed, a discrepancy);
// 2 a usage or input error (nothing was changed); 3 slipgate could not be
// reached (`verify`); 75 `serve` stopped because its store failed
// (cli/exit-codes.ts).
import { CommanderError } from 'commander';
import { slipgateProgram } from './cli/program.js';
import { ConfigError } from './config.js';
import { InputError } from './domain/errors.js';
import { IdempotencyConflictError } from './domain/admin/actions.js';
import { StoreError } from './domain/ports/store.js';
import { DatabaseOpenError } from './store/open.js';
import { NewerSchemaError } from './store/schema-version.js';

const program = slipgateProgram();

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
