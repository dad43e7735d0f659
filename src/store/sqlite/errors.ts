// SQLite's errors as StoreErrors, for every call of the store (store-failure.ts
// passes each error here after looking for I/O failures).
import { ConstraintViolationError } from '../../domain/ports/store.js';

export function mapError(err: unknown): Error {
  const code = (err as { code?: string }).code ?? '';
  if (code.startsWith('SQLITE_CONSTRAINT')) {
    // SQLite names the rule in its message ("CHECK constraint failed: credits >= 0").
    const constraint = `${code}: ${(err as Error).message}`;
    const message = /UNIQUE|PRIMARYKEY|FOREIGNKEY/.test(code) ? 'record already exists or references a missing record' : `record breaks the database rule ${constraint}`;
    return new ConstraintViolationError(constraint, message, { cause: err });
  }
  return err instanceof Error ? err : new Error(String(err));
}
