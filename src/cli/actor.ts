// Who made a change from the command line, as the ledger and the admin
// events name it: `cli:<name>`. A shared account (root, the service user)
// says nothing about which staff member topped up, so the name comes from
// `--as NAME`, then SLIPGATE_ACTOR, then SUDO_USER (who ran `sudo slipgate`),
// and only then from the operating system's user.
import { userInfo } from 'node:os';
import { InputError } from '../domain/errors.js';

const MAX_NAME = 100;

/** The actor of this process's changes; `as` is the `--as` option. */
export function cliActor(as: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  for (const [source, value] of [['--as', as], ['SLIPGATE_ACTOR', env.SLIPGATE_ACTOR], ['SUDO_USER', env.SUDO_USER]] as const) {
    if (value === undefined || (source !== '--as' && value === '')) continue;
    return `cli:${checkedName(source, value)}`;
  }
  return `cli:${systemUser()}`;
}

function checkedName(source: string, value: string): string {
  const name = value.trim();
  // Control characters would forge lines in the log and the CSV export.
  if (name.length === 0 || name.length > MAX_NAME || /\p{Cc}/u.test(name)) {
    throw new InputError(`${source}: a staff name must be 1 to ${MAX_NAME} printable characters`);
  }
  return name;
}

/**
 * userInfo() throws when the uid has no passwd entry (`docker run --user
 * 1234`, Kubernetes runAsUser, systemd's dynamic users once stopped): the
 * uid then names the user.
 */
function systemUser(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid:${process.getuid?.() ?? 'unknown'}`;
  }
}
