// Runs a child as an unprivileged user: `nobody` through setpriv when the
// tests run as root (CI and this machine do), else as the current user, who
// is unprivileged already.
import { chownSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const NOBODY = 65534;

export const runsAsRoot = process.getuid?.() === 0;

/** The command line that runs `argv` unprivileged. */
export function unprivileged(argv: string[]): string[] {
  if (!runsAsRoot) return argv;
  return ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', ...argv];
}

/** Hands `path` (recursively) to the user `unprivileged` runs as. */
export function giveToUnprivileged(path: string): void {
  if (!runsAsRoot) return;
  chownSync(path, NOBODY, NOBODY);
  if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) giveToUnprivileged(join(path, entry));
}
