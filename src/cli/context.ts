// What every operator command needs: config, a store and the services on it.
import { InvalidArgumentError } from 'commander';
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { loadConfig } from '../config.js';
import { storeServices, type StoreServices } from '../compose.js';
import { InputError } from '../domain/errors.js';
import { describeDatabaseUrl, sqlitePath } from '../store/database-url.js';
import { openStore } from '../store/open.js';
import { createLogger, logFormatFor } from '../log.js';

export interface CliContext extends StoreServices {
  actor: string;
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
  const url = config.DATABASE_URL;
  const setting = process.env.DATABASE_URL === undefined ? 'the default; DATABASE_URL is not set' : 'from DATABASE_URL';
  const file = sqlitePath(url);
  if (!mayCreate && file !== null && file !== ':memory:' && !existsSync(file)) {
    throw new InputError(
      `no database at ${file} (${setting}); this command does not create one, so nothing was created. Run it in the folder slipgate serves from, or set DATABASE_URL to its database`,
    );
  }
  process.stderr.write(`slipgate: using database ${describeDatabaseUrl(url)} (${setting})\n`);
  const store = await openStore(url);
  try {
    // Changes made here are logged like those made through GraphQL; on stderr, so stdout stays the command's output.
    const logger = createLogger(config.LOG_LEVEL, process.stderr, logFormatFor(config.LOG_FORMAT, process.stderr));
    return await fn({ ...storeServices(store, { logger }), actor: `cli:${userInfo().username}` });
  } finally {
    await store.close();
  }
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new InvalidArgumentError(`expected a whole number, got "${value}"`);
  return n;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
