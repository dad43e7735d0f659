// A database migrated by a newer slipgate: an older one (a rollback to the
// old binary without restoring the backup taken before the upgrade) must
// not run on tables it does not know; it refuses to start and says what to do.
import { packageVersion } from '../version.js';

export class NewerSchemaError extends Error {
  override name = 'NewerSchemaError';
}

/** Throws when `applied` is past the last migration this build knows. */
export function refuseNewerSchema(applied: number, known: number, database: string): void {
  if (applied <= known) return;
  throw new NewerSchemaError(
    `the database ${database} has schema version ${applied}, newer than this slipgate ${packageVersion()} knows (${known}): a newer slipgate migrated it. ` +
      'Run the newer version, or roll back by restoring the backup taken before the upgrade (docs/upgrade.md)',
  );
}
