// `serve`'s first start without a SECRETS_KEY on SQLite (docs/configuration.md):
// the key beside the database, or a new one made once and kept there.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError, keyBesideDatabase, type Config } from '../config.js';
import { makeSecretsKeyFile, newSecretsKey, readSecretsKeyFile, secretsKeyFileOf } from './secrets-key-file.js';

/**
 * `serve` without a SECRETS_KEY on SQLite: the key beside the database, or a
 * new one, written only once the server is up (saveMadeSecretsKey), so that
 * a start that fails (a port in use, a folder it may not write) leaves
 * nothing behind.
 */
export function withMadeSecretsKey(config: Config): Config {
  if (config.SECRETS_KEY) return config;
  const file = secretsKeyFileOf(config.DATABASE_URL);
  if (file === null) return config;
  const found = keyBesideDatabase(config.DATABASE_URL, readSecretsKeyFile);
  if (found.SECRETS_KEY) return { ...config, ...found };
  // Its folder is there: written now, so that two processes starting together on it agree on one key.
  if (existsSync(dirname(file))) {
    try {
      return { ...config, SECRETS_KEY: makeSecretsKeyFile(file), secretsKeyFile: file };
    } catch (err) {
      // A folder it may not write: the store's open says so, in its own words.
      if (!['EACCES', 'EPERM', 'EROFS'].includes((err as NodeJS.ErrnoException).code ?? '')) throw new ConfigError(`invalid configuration:\n  SECRETS_KEY: ${(err as Error).message}`);
    }
  }
  return { ...config, SECRETS_KEY: newSecretsKey(), secretsKeyFile: file, secretsKeyUnsaved: true };
}

/** Writes the key withMadeSecretsKey made; throws when another process wrote a different one first. */
export function saveMadeSecretsKey(config: Config): void {
  if (!config.secretsKeyUnsaved || !config.SECRETS_KEY || !config.secretsKeyFile) return;
  const kept = makeSecretsKeyFile(config.secretsKeyFile, config.SECRETS_KEY);
  if (!kept.equals(config.SECRETS_KEY)) throw new Error(`another slipgate made ${config.secretsKeyFile} at the same time; start it again`);
}
