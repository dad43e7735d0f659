// What every operator command needs: config, a store, the account service.
import { InvalidArgumentError } from 'commander';
import { userInfo } from 'node:os';
import { loadConfig } from '../config.js';
import { AccountService } from '../domain/accounts.js';
import { AdminActions } from '../domain/admin-actions.js';
import { openStore } from '../store/open.js';
import type { Store } from '../domain/ports/store.js';

export interface CliContext {
  store: Store;
  accounts: AccountService;
  /** AccountService changes plus the admin event trail (who, why). */
  admin: AdminActions;
  actor: string;
}

/** Opens the store, runs `fn`, always closes the store. */
export async function withStore<T>(fn: (ctx: CliContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openStore(config.DATABASE_URL);
  try {
    const accounts = new AccountService(store);
    return await fn({ store, accounts, admin: new AdminActions({ store, accounts }), actor: `cli:${userInfo().username}` });
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
