// The lines a person reads when slipgate starts: where each part is and how
// to get in. Written once per `serve` (by the first worker in cluster mode).
import cluster from 'node:cluster';
import { relative } from 'node:path';
import type { Logger } from 'pino';
import { isLoopbackHost } from '../http/checkout/base-url.js';

export interface GuideInput {
  publicUrl: string;
  adminUrl: string;
  adminHost: string;
  metricsToken: boolean;
  /** Where checkout links point, or why there are none (http/checkout/base-url.ts). */
  checkout: { base: string | undefined; missing: string | null; localDefault: boolean };
}

/**
 * How the operator types the CLI where this server runs: `sudo slipgate`
 * under systemd (INVOCATION_ID: the installed wrapper reads the service's
 * settings), `npx slipgate` when npm started it, else node and the entry
 * point as this process was started (the image: `node dist/entry.cjs`).
 */
export function cliCommand(env: NodeJS.ProcessEnv = process.env, entry: string | undefined = process.argv[1], cwd: string = process.cwd()): string {
  if (env.INVOCATION_ID) return 'sudo slipgate';
  if (env.npm_command || env.npm_lifecycle_event || !entry) return 'npx slipgate';
  const inside = relative(cwd, entry);
  return `node ${inside.startsWith('..') ? entry : inside}`;
}

export function logStartupGuide(logger: Logger, { publicUrl, adminUrl, adminHost, metricsToken, checkout }: GuideInput): void {
  // Workers share the listeners: one of them says it, the first one.
  if (cluster.isWorker && cluster.worker?.id !== 1) return;
  const verify = `${publicUrl}/api/v1/verify`;
  logger.info({ url: verify }, `public API: POST ${verify} with the account's API key in the x-api-key header`);
  if (checkout.missing === null) {
    const why = checkout.localDefault ? ' (PUBLIC_URL is not set: the public listener\'s own address, which opens on this machine only)' : '';
    logger.info({ url: checkout.base }, `checkout pages: payment requests' checkoutUrl opens under ${checkout.base}/checkout/${why}`);
  }
  else logger.warn({ checkoutUrl: null }, `no checkout pages: payment requests get checkoutUrl null, because ${checkout.missing}`);
  logger.info({ url: `${adminUrl}/graphql` }, `admin API (GraphQL, admin token as Bearer): ${adminUrl}/graphql; health checks at ${adminUrl}/healthz and /readyz`);
  logger.info(
    { url: `${adminUrl}/` },
    `dashboard: open ${adminUrl}/ and sign in with an admin token; create one with: ${cliCommand()} admin-tokens create --name "your name" --role admin (or --role support / viewer)`,
  );
  logger.info(
    { url: `${adminUrl}/metrics` },
    metricsToken ? `metrics (Prometheus): ${adminUrl}/metrics, with METRICS_TOKEN as a Bearer token` : `metrics (Prometheus): ${adminUrl}/metrics, open (set METRICS_TOKEN to require a token)`,
  );
  if (!metricsToken && !isLoopbackHost(adminHost)) {
    logger.warn({ ADMIN_HOST: adminHost }, 'the admin listener is reachable from other machines and /metrics needs no token; set METRICS_TOKEN');
  }
}
