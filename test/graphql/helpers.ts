// Talks to the GraphQL admin API of a real running slipgate over HTTP, with
// one real admin token per role.
import { Writable } from 'node:stream';
import type { AdminRole } from '../../src/domain/types.js';
import { createLogger } from '../../src/log/log.js';
import { startApp, type TestApp, type TestAppOptions } from '../helpers/app.js';

export interface GraphqlTestApp extends TestApp {
  tokens: Record<AdminRole, string>;
  /** POST /graphql on the admin listener as `role` (or with a raw token). */
  gql(as: AdminRole | { token: string | null }, query: string, variables?: Record<string, unknown>): Promise<GqlResponse>;
}

export interface GqlResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface GraphqlTestAppOptions extends TestAppOptions {
  /**
   * Use the upstream pool built from UPSTREAMS (env) as `serve` does, instead
   * of test/helpers/app's single sandbox, so upstream health has real numbers.
   */
  configuredNetwork?: boolean;
  /** Collects the server's log lines (level error and up) as parsed JSON. */
  logs?: Record<string, unknown>[];
}

export async function startGraphqlApp(opts: GraphqlTestAppOptions = {}): Promise<GraphqlTestApp> {
  const app = opts.configuredNetwork || opts.logs ? await startOwnApp(opts) : await startApp(opts);
  const service = app.adminTokens;
  const tokens = {} as Record<AdminRole, string>;
  for (const role of ['viewer', 'support', 'admin'] as const) {
    tokens[role] = (await service.create({ name: `${role}-token`, role, actor: 'test' })).secret;
  }
  return {
    ...app,
    tokens,
    gql: (as, query, variables) => postGraphql(app.adminUrl, typeof as === 'string' ? tokens[as] : as.token, query, variables),
  };
}

export async function postGraphql(baseUrl: string, token: string | null, query: string, variables?: Record<string, unknown>): Promise<GqlResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${baseUrl}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (e.g. HTML): callers look at `text`
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** The codes of a response's GraphQL errors, in order. */
export function errorCodes(res: GqlResponse): string[] {
  return ((res.body?.errors ?? []) as { extensions?: { code?: string } }[]).map((e) => e.extensions?.code ?? '(none)');
}

/** Fails with the whole answer when the request had errors, so test output shows why. */
export function dataOf(res: GqlResponse): any {
  if (res.status !== 200 || res.body?.errors) throw new Error(`GraphQL request failed: ${res.status} ${res.text}`);
  return res.body.data;
}

/** startApp with the configured network and/or a log to look at. */
function startOwnApp(opts: GraphqlTestAppOptions): Promise<TestApp> {
  const logs = opts.logs;
  const logger = logs
    ? createLogger('error', new Writable({ write: (chunk: Buffer, _enc, done) => (logs.push(JSON.parse(chunk.toString())), done()) }))
    : createLogger('silent');
  return startApp({ ...opts, logger, upstream: opts.configuredNetwork ? null : opts.upstream });
}
