// `slipgate serve`: run until SIGTERM/SIGINT, then shut down gracefully.
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { createLogger } from '../log.js';
import { run } from '../main.js';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('run the public verify API and the admin listener')
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger(config.LOG_LEVEL);
      const app = await run(config, { logger });
      const stop = (signal: string) => {
        logger.info({ signal }, 'signal received');
        app.close().then(
          () => process.exit(0),
          (err: unknown) => {
            logger.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.on('SIGHUP', () => {
        try {
          logger.info({ changes: app.reloadUpstreams() }, 'upstream domains reloaded');
        } catch (err) {
          logger.error({ err }, 'upstream reload failed; keeping the current domains');
        }
      });
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
}
