// `slipgate serve`: run until SIGTERM/SIGINT, then shut down gracefully.
// With --workers N (or WORKERS) > 1 the process becomes a node:cluster
// primary that only supervises N workers, each running this same command.
import cluster from 'node:cluster';
import type { Command } from 'commander';
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../config.js';
import { saveMadeSecretsKey, withMadeSecretsKey } from '../files/made-secrets-key.js';
import { createLogger, logFormatFor } from '../log/log.js';
import { EXIT_STORE_FAILED } from './exit-codes.js';
import { missingDatabaseRefusal } from './serve-database.js';
import { startupFailureLine } from './startup-failure.js';
import { READY_MESSAGE, superviseWorkers, workerCount } from './serve-cluster.js';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('run the public verify API and the admin listener')
    .option('--workers <n>', 'processes sharing the listeners; 0 or "auto" = one per CPU core (default: WORKERS or 1)')
    .option('--create', 'create the SQLite database if it does not exist (default: only ./data/slipgate.db; or DATABASE_CREATE=yes)')
    .addHelpText(
      'after',
      `
Main settings (environment variables; docs/configuration.md lists them all):
  PORT, HOST              public API listener (default 3000 on 127.0.0.1)
  ADMIN_PORT, ADMIN_HOST  admin listener: GraphQL, dashboard, health, metrics (default 3001 on 127.0.0.1)
  DATABASE_URL            sqlite:./data/slipgate.db (default), postgres://… or mongodb://…
  DATABASE_CREATE         yes: create a missing SQLite file (as --create); else only the default one is created
  UPSTREAMS_FILE          bank network configuration (unset: the built-in sandbox network)
  SECRETS_KEY             seals webhook and LINE secrets in the database (openssl rand -hex 32);
                          any secret setting may come from NAME_FILE or a systemd credential NAME
  TRUST_PROXY_HOPS        proxies in front of the public port whose X-Forwarded-For is trusted (default 0)
  LOG_LEVEL, LOG_FORMAT   info, debug…; json or pretty`,
    )
    .action(async (opts: { workers?: string; create?: boolean }) => {
      let config = loadConfig(opts.workers === undefined ? process.env : { ...process.env, WORKERS: opts.workers });
      const refusal = missingDatabaseRefusal(config, opts.create === true);
      if (refusal) {
        process.stderr.write(`slipgate: ${refusal}\n`);
        process.exit(1);
      }
      // The primary makes it before any worker starts; the workers read it.
      config = withMadeSecretsKey(config);
      const logger = createLogger(config.LOG_LEVEL, undefined, logFormatFor(config.LOG_FORMAT));
      const workers = workerCount(config.WORKERS);
      if (cluster.isPrimary && workers > 1) {
        // The workers read the key from the file, so the primary writes it before the first one starts.
        saveMadeSecretsKey(config);
        return superviseWorkers({ ...config, secretsKeyUnsaved: false }, logger, workers);
      }
      await serveInThisProcess(config, cluster.worker ? logger.child({ worker: cluster.worker.id }) : logger);
    });
}

/** Without SECRETS_KEY, webhook signing secrets are stored as they are (domain/secret-box.ts). */
function warnUnsealedSecrets(config: Config, logger: Logger): void {
  if (config.secretsKeyFile) {
    logger.info(
      { secretsKeyFile: config.secretsKeyFile },
      `SECRETS_KEY: the key made on the first start, in ${config.secretsKeyFile} (mode 0600); keep it with the backups, and move it to a credential before going live (docs/deploy.md#go-live-check)`,
    );
    return;
  }
  if (config.SECRETS_KEY) return;
  const warning = 'SECRETS_KEY is not set: webhook signing secrets are stored unsealed (plain) in the database, and LINE channels cannot be connected; make one with: openssl rand -hex 32 (docs/deploy.md)';
  logger.warn({ setting: 'SECRETS_KEY' }, warning);
  process.stderr.write(`slipgate: warning: ${warning}\n`);
}

async function serveInThisProcess(config: Config, logger: Logger): Promise<void> {
  // Loaded here so the other CLI commands never load the server (express, prom-client).
  const { run } = await import('../main.js');
  let app: Awaited<ReturnType<typeof run>>;
  try {
    app = await run(config, { logger });
  } catch (err) {
    // Everything run() had opened is closed again; only the reason is left to say.
    process.stderr.write(`slipgate: ${startupFailureLine(err)}\n`);
    if (config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace') process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  }
  // Once per serve, once it is up (a start that fails says only why): the first worker says it, as the startup guide.
  if (!cluster.isWorker || cluster.worker?.id === 1) warnUnsealedSecrets(config, logger);
  const shutDown = (code: number) =>
    app.close().then(
      () => process.exit(code),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(code || 1);
      },
    );
  const stop = (signal: string) => {
    logger.info({ signal }, 'signal received');
    void shutDown(0);
  };
  // Like PostgreSQL after a failed fsync: in-flight requests get their
  // (error) answers, then the process exits for its supervisor to restart.
  void app.storeFailed?.then(() => {
    logger.fatal({ exitCode: EXIT_STORE_FAILED }, 'exiting so the supervisor restarts slipgate and recovery runs');
    void shutDown(EXIT_STORE_FAILED);
  });
  process.on('SIGHUP', () => {
    try {
      logger.info({ changes: app.reloadUpstreams() }, 'upstream domains reloaded');
    } catch (err) {
      logger.error({ err }, 'upstream reload failed; keeping the current domains');
    }
  });
  if (cluster.isWorker) {
    // A signal often reaches a worker twice (the whole process group from a
    // terminal or systemd, then the primary): the repeat must not kill the drain.
    let stopping = false;
    const once = (signal: string) => {
      if (!stopping) stop(signal);
      stopping = true;
    };
    process.on('SIGTERM', once);
    process.on('SIGINT', once);
  } else {
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  }
  if (cluster.isWorker) process.send?.(READY_MESSAGE);
}
