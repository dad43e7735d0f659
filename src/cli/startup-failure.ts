// Why `serve` could not start, as the one line an operator reads: the cause
// and the setting to change. The stack only helps a developer, so it is
// printed only with LOG_LEVEL=debug.
import { ConfigError } from '../config.js';
import { ListenError } from '../http/listen-error.js';
import { DatabaseOpenError } from '../store/open.js';
import { NewerSchemaError } from '../store/schema-version.js';
import { NonAtomicDatabaseError } from '../store/non-atomic.js';

export function startupFailureLine(err: unknown): string {
  if (err instanceof ListenError) return listenFailure(err);
  // Their messages already name the database and DATABASE_URL, or the setting (UPSTREAMS_FILE and the field).
  if (err instanceof DatabaseOpenError || err instanceof NewerSchemaError || err instanceof NonAtomicDatabaseError) return err.message;
  if (err instanceof ConfigError) return `bad configuration: ${oneLine(err.message)}`;
  return `could not start: ${oneLine(err instanceof Error ? err.message : String(err))}`;
}

function listenFailure({ code, address: { port, host, portSetting, hostSetting } }: ListenError): string {
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is already in use; stop the other process or set ${portSetting} to a free port`;
    case 'EADDRNOTAVAIL':
      return `address ${host} is not an address of this machine; set ${hostSetting} to one of its addresses (or 0.0.0.0 for all)`;
    case 'EACCES':
      return `not allowed to listen on port ${port} of ${host} (ports below 1024 need privileges); set ${portSetting} to 1024 or above`;
    default:
      return `cannot listen on ${host}:${port} (${code}); check ${hostSetting} and ${portSetting}`;
  }
}

function oneLine(text: string): string {
  return text.replace(/:\s*\n\s*/g, ': ').replace(/\s*\n\s*/g, '; ');
}
