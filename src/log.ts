// One pino logger for the process. Secrets never reach a log line: the
// headers that carry them are redacted wherever they appear.
import { pino, type Logger } from 'pino';

export const REDACT_PATHS = [
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

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'slipgate' } };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * Request paths are caller text: one who puts a key in the URL
 * (/api/v1/verify/slip_…) must not get it written to the log.
 */
export function scrubSecrets(text: string): string {
  return text.replace(/(slip|sgadm)_[A-Za-z0-9_-]{4,}/g, '$1_[redacted]');
}
