// The WHERE clause of a retention pass or an erasure, shared by the SQL
// engines (`?` placeholders; the PostgreSQL adapter renumbers them).
import type { PersonalDataScope } from '../../domain/ports/store.js';
import type { SqlFilter } from './audit-filter.js';

/** `time` turns a millisecond timestamp into the engine's parameter value. */
export function personalDataScope(scope: PersonalDataScope, time: (ms: number) => unknown): SqlFilter {
  if ('accountId' in scope) return { where: 'account_id = ?', params: [scope.accountId] };
  return { where: 'created_at < ?', params: [time(scope.createdBefore.getTime())] };
}
