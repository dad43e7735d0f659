// `doctor --go-live`'s secret files check: every file a secret is read from
// must be its owner's alone (go-live.ts runs it with the others).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SECRET_SETTINGS } from '../config.js';
import { statOrNull } from '../files/durable-file.js';
import { blocks, ok, type GoLiveCheck } from './go-live-check.js';

/**
 * Every file a secret was read from (NAME_FILE, systemd's credential NAME,
 * UPSTREAMS_FILE and the secret *File entries of its domains): one another
 * user can read gives the secret away whatever else is right. Each is named
 * with its mode, never its content.
 */
export function secretFilesCheck(env: NodeJS.ProcessEnv): GoLiveCheck {
  const name = 'secret files';
  const files = secretFiles(env);
  const open = files.flatMap(({ setting, path }) => {
    const stat = statOrNull(path);
    // One that cannot be read is the bank network's or the configuration's blocker already.
    return stat && (stat.mode & 0o077) !== 0 ? [{ setting, path, mode: (stat.mode & 0o777).toString(8).padStart(4, '0') }] : [];
  });
  if (open.length > 0) {
    const detail = open.map((f) => `${f.setting} ${f.path} is ${f.mode}, open to others than its owner`).join('; ');
    return blocks(name, detail, `chmod 600 ${open.map((f) => JSON.stringify(f.path)).join(' ')}`);
  }
  return ok(name, files.length === 0 ? 'no secret is read from a file' : `${files.length} file${files.length === 1 ? '' : 's'} 0600 (${files.map((f) => f.setting).join(', ')})`);
}

/** Domain fields naming a file that is not secret: a CA or a client certificate is public. */
const PUBLIC_FILE_FIELDS = new Set(['caFile', 'certFile']);

function secretFiles(env: NodeJS.ProcessEnv): { setting: string; path: string }[] {
  const set = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';
  const files: { setting: string; path: string }[] = [];
  for (const setting of SECRET_SETTINGS) {
    const file = env[`${setting}_FILE`];
    if (set(file)) files.push({ setting: `${setting}_FILE`, path: resolve(file) });
    // config.env holds the value read from a credential already: a credential file there is checked whichever way it was set.
    else if (set(env.CREDENTIALS_DIRECTORY) && existsSync(join(env.CREDENTIALS_DIRECTORY, setting))) {
      files.push({ setting: `the credential ${setting}`, path: join(env.CREDENTIALS_DIRECTORY, setting) });
    }
  }
  const upstreamsFile = env.UPSTREAMS_FILE?.trim();
  let upstreams: string | undefined = env.UPSTREAMS?.trim() || undefined;
  let baseDir = process.cwd();
  if (upstreamsFile && !upstreams) {
    const path = resolve(upstreamsFile);
    files.push({ setting: 'UPSTREAMS_FILE', path });
    baseDir = dirname(path);
    upstreams = readOrUndefined(path);
  }
  for (const entry of jsonArrayOrEmpty(upstreams)) files.push(...fileFields(entry, baseDir, ''));
  return files;
}

/** The *File fields of a domain entry, nested ones (tls.keyFile) too; relative paths resolve as the bank config resolves them. */
function fileFields(value: unknown, baseDir: string, prefix: string): { setting: string; path: string }[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([field, v]) => {
    if (typeof v === 'string' && field.endsWith('File') && !PUBLIC_FILE_FIELDS.has(field)) return [{ setting: `UPSTREAMS ${prefix}${field}`, path: resolve(baseDir, v) }];
    return fileFields(v, baseDir, `${prefix}${field}.`);
  });
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** What the bank network check reports as broken is not looked into here. */
function jsonArrayOrEmpty(text: string | undefined): unknown[] {
  if (text === undefined) return [];
  try {
    const json: unknown = JSON.parse(text);
    return Array.isArray(json) ? json : [];
  } catch {
    return [];
  }
}
