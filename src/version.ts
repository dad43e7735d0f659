// The version in package.json, found from this file whether it runs from
// src/ (tsx) or from dist/src/ (the build).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'slipgate' && pkg.version) return pkg.version;
    } catch {
      // no package.json here: look one folder up
    }
    const parent = dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}

/**
 * The git revision the build was made from (dist/revision.json, written by
 * scripts/write-revision.mjs); "unknown" when run from src/ or built without git.
 */
function buildRevision(): string {
  try {
    const { revision } = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'revision.json'), 'utf8')) as { revision?: unknown };
    // The file is ours, but a string of sane characters is all that is ever printed.
    return typeof revision === 'string' && /^[\w.+-]{1,80}$/.test(revision) ? revision : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** What `slipgate --version` prints: `0.1.0 (revision 1a2b3c4d5e6f)`. */
export function versionLine(): string {
  return `${packageVersion()} (revision ${buildRevision()})`;
}
