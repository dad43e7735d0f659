// Starts a real slipgate (both listeners, a real store) for a test and talks
// to it over real HTTP.
import { join } from 'node:path';
import type { Logger } from 'pino';
import { loadConfig } from '../../src/config.js';
import type { AccountService } from '../../src/domain/accounts/operations.js';
import { VERIFY_PATH } from '../../src/http/public-app.js';
import { createLogger } from '../../src/log/log.js';
import { run, type RunOptions, type Running } from '../../src/main.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import type { UpstreamPool } from '../../src/upstream/pool.js';
import type { BankAdapter } from '../../src/domain/ports/upstream.js';
import { tempDir } from './temp.js';

export interface TestApp extends Running {
  accounts: AccountService;
  /** The store this app runs on, for doctor and raw probes. */
  databaseUrl: string;
  /** A new account with `credits` and its API key. */
  account(credits: number): Promise<{ accountId: string; apiKey: string }>;
  post(body: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; body: any }>;
  verify(apiKey: string, qrcode: unknown): Promise<{ status: number; headers: Headers; body: any }>;
  stop(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Defaults to the sandbox network; null uses the network configured by UPSTREAMS (env). */
  upstream?: BankAdapter | UpstreamPool | null;
  /** Defaults to a fresh SQLite file. */
  databaseUrl?: string;
  /** Defaults to a silent logger. */
  logger?: Logger;
  /** Re-check timing instead of RECHECK_MINUTES and the real backoff (compose.ts ServerOptions). */
  recheckTiming?: RunOptions['recheckTiming'];
}

export async function startApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const dir = tempDir();
  const databaseUrl = opts.databaseUrl ?? `sqlite:${join(dir.path, 'slipgate.db')}`;
  const config = loadConfig({
    PORT: '0',
    ADMIN_PORT: '0',
    DATABASE_URL: databaseUrl,
    // Set by test/global-setup.ts when the run's MongoDB-wire server is FerretDB.
    ...(process.env.MONGODB_ALLOW_NON_ATOMIC ? { MONGODB_ALLOW_NON_ATOMIC: process.env.MONGODB_ALLOW_NON_ATOMIC } : {}),
    ...opts.env,
  });
  const upstream = opts.upstream === null ? undefined : (opts.upstream ?? new SandboxUpstream());
  const running = await run(config, { logger: opts.logger ?? createLogger('silent'), upstream, ...(opts.recheckTiming ? { recheckTiming: opts.recheckTiming } : {}) });
  const { accounts } = running;

  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(running.publicUrl + VERIFY_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };

  return {
    ...running,
    accounts,
    databaseUrl,
    async account(credits) {
      const { account, apiKey } = await accounts.createAccount({ name: 'Test Shop', credits, actor: 'test' });
      return { accountId: account.id, apiKey: apiKey.secret };
    },
    post,
    verify: (apiKey, qrcode) => post({ qrcode }, { 'x-api-key': apiKey }),
    async stop() {
      await running.close();
      dir.remove();
    },
  };
}

/** Wraps an upstream to count how often the network was asked, and keep each call's abort signal. */
export function counting(inner: BankAdapter): BankAdapter & { calls: number; signals: AbortSignal[] } {
  const wrapper = {
    name: inner.name,
    calls: 0,
    signals: [] as AbortSignal[],
    verify(query: Parameters<BankAdapter['verify']>[0], signal: AbortSignal) {
      wrapper.calls++;
      wrapper.signals.push(signal);
      return inner.verify(query, signal);
    },
  };
  return wrapper;
}
