// What every operator command needs: config, a store and the services on it.
import { InvalidArgumentError } from 'commander';
import type { Logger } from 'pino';
import { DEFAULT_DATABASE_URL, loadConfig, type Config } from '../config.js';
import { storeServiceOptions, storeServices, type StoreServices } from '../compose-store.js';
import { InputError } from '../domain/errors.js';
import { describeDatabaseUrl } from '../store/database-url.js';
import { MissingDatabaseError, openStore } from '../store/open.js';
import type { PurgeReport, Store } from '../domain/ports/store.js';
import { createLogger, logFormatFor } from '../log/log.js';
import { cliActor } from './actor.js';

export interface CliContext extends StoreServices {
  actor: string;
}

/** `--as NAME`, a program-wide option: cli.ts sets it before the command runs. */
let actorOption: string | undefined;
export function setActorOption(name: string | undefined): void {
  actorOption = name;
}

/** Opens the store (creating it if new), runs `fn`, always closes the store. Says on stderr which database it is. */
export function withStore<T>(fn: (ctx: CliContext) => Promise<T>): Promise<T> {
  return openFor(fn, { mayCreate: true });
}

/**
 * For the commands that read or change what already exists (list, audit,
 * doctor, top-up, revoke…): a database that
 * does not exist is a wrong folder or a wrong DATABASE_URL, never a reason
 * to create an empty one and report "nothing there".
 */
export function withExistingStore<T>(fn: (ctx: CliContext) => Promise<T>): Promise<T> {
  return openFor(fn, { mayCreate: false });
}

async function openFor<T>(fn: (ctx: CliContext) => Promise<T>, { mayCreate }: { mayCreate: boolean }): Promise<T> {
  const config = loadConfig();
  // Checked before the database is touched: a bad --as changes nothing.
  const actor = cliActor(actorOption);
  const url = config.DATABASE_URL;
  announceDatabase(url);
  let store: Store;
  try {
    store = await openStore(url, { mustExist: !mayCreate });
  } catch (err) {
    if (!(err instanceof MissingDatabaseError)) throw err;
    throw new InputError(
      `${err.message}; this command does not create one, so nothing was created. Run it in the folder slipgate serves from, or set DATABASE_URL to its database`,
    );
  }
  try {
    const logger = commandLogger(config);
    return await fn({ ...storeServices(store, { ...storeServiceOptions(config, logger), keyCacheTtlMs: 0 }), actor });
  } finally {
    await store.close();
  }
}

/**
 * A one-shot command's logger, on stderr (stdout stays the command's output).
 * The services log every change at INFO, for a server's log; a person
 * running one command wants its output alone (the change is an admin event
 * either way, `audit list`). So without LOG_LEVEL only warnings and errors
 * show, as readable lines; LOG_LEVEL set (empty counts as unset, as in
 * loadConfig) logs as asked, in LOG_FORMAT or JSON off a terminal, like `serve`.
 */
function commandLogger(config: Config, env: NodeJS.ProcessEnv = process.env): Logger {
  if ((env.LOG_LEVEL ?? '') === '') return createLogger('warn', process.stderr, config.LOG_FORMAT ?? 'pretty');
  return createLogger(config.LOG_LEVEL, process.stderr, logFormatFor(config.LOG_FORMAT, process.stderr));
}

/** `slipgate: using database …` on stderr, said first: a server that takes seconds to answer is then not a mystery. */
export function announceDatabase(url: string): void {
  const setting =
    process.env.DATABASE_URL ? 'from DATABASE_URL' : url !== DEFAULT_DATABASE_URL ? 'from DATABASE_URL_FILE or its credential' : 'the default; DATABASE_URL is not set';
  process.stderr.write(`slipgate: using database ${describeDatabaseUrl(url)} (${setting})\n`);
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new InvalidArgumentError(`expected a whole number, got "${value}"`);
  return n;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** After a pass: whether the engine's own files let go of the removed values; an unfinished purge is a warning on stderr. */
export function printPurge(purge: PurgeReport | undefined): void {
  if (!purge) return;
  if (purge.complete) console.log(`Database files: ${purge.detail}.`);
  else console.error(`Warning: ${purge.detail}.`);
}
