// What every operator command needs: config, a store and the services on it.
import { InvalidArgumentError } from 'commander';
import { userInfo } from 'node:os';
import { loadConfig } from '../config.js';
import { storeServices, type StoreServices } from '../compose.js';
import { openStore } from '../store/open.js';

export interface CliContext extends StoreServices {
  actor: string;
}

/** Opens the store, runs `fn`, always closes the store. */
export async function withStore<T>(fn: (ctx: CliContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openStore(config.DATABASE_URL);
  try {
    return await fn({ ...storeServices(store), actor: `cli:${userInfo().username}` });
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
