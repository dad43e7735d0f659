// One pino logger for the process. Secrets never reach a log line: the
// headers that carry them are redacted wherever they appear.
import { pino, type Logger } from 'pino';
import { prettyStream, wantsColour } from './pretty.js';

const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'headers["x-api-key"]',
  'headers.authorization',
  'apiKey',
  'secret',
  'token',
  '*.apiKey',
  '*.secret',
  '*.token',
];

export type LogFormat = 'json' | 'pretty';

/** LOG_FORMAT when set; otherwise readable lines for a terminal and JSON for everything else. */
export function logFormatFor(setting: LogFormat | undefined, stream: { isTTY?: boolean } = process.stdout): LogFormat {
  return setting ?? (stream.isTTY ? 'pretty' : 'json');
}

/** JSON lines on `destination` (stdout by default); `pretty` turns them into readable lines for a person. */
export function createLogger(level: string, destination?: NodeJS.WritableStream, format: LogFormat = 'json'): Logger {
  const options = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'slipgate' } };
  if (format === 'pretty') {
    const out = destination ?? process.stdout;
    return pino(options, prettyStream(out, { colour: wantsColour(out) }));
  }
  // stdout written synchronously: a line is out (or refused) before the next
  // one. pino's default buffers and flushes at exit, and that flush retries a
  // closed pipe (EPIPE: `serve | head`, a log shipper that died) for ever,
  // so SIGTERM never ended the process. On EPIPE this destination stops
  // writing instead.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: true }));
}

/**
 * Request paths are caller text: one who puts a key in the URL
 * (/api/v1/verify/slip_…) must not get it written to the log.
 */
export function scrubSecrets(text: string): string {
  // A checkout page's token (/checkout/<id>/<token>) opens the page: the id stays, the token never is written.
  return text.replace(/(slip|sgadm)_[A-Za-z0-9_-]{4,}/g, '$1_[redacted]').replace(/(\/checkout\/pr_[0-9a-f]{32}\/)[^/?#\s"]+/g, '$1[redacted]');
}
