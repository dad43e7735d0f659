// The lookups whose cost must not grow with history: the verify path's
// duplicate check and the admin API's common filters (by account, request,
// slip, time range; usage). Each engine's *-plans.test.ts asks its own
// planner how it runs every one of them on a table with history, and checks
// that the index made for it answers it, with no full scan and no sort.
import type { AuditQuery } from '../../src/domain/ports/store.js';
import type { AuditTable } from '../../src/store/sql/audit-filter.js';

/** Which index answers a lookup; each engine names its indexes after these. */
export type IndexRole = 'duplicate' | 'account_time' | 'time' | 'transaction_time' | 'request_time';

export interface PlannedLookup {
  name: string;
  table: AuditTable;
  query: AuditQuery;
  index: IndexRole;
}

/** The account with a long history: one in twenty of many rows, spread over the whole time line. */
const BUSY_ACCOUNT = 'acc_busy';
const ACCOUNTS = 20;
const SEEDED = { verifications: 20_000, failures: 10_000 } as const;
/** Seeded rows are one second apart from here, so time ranges select a slice. */
const SEED_START_MS = Date.UTC(2026, 0, 1);

/** A time range holding a small slice (100 of 20,000) of the seeded rows. */
const slice = { from: new Date(SEED_START_MS + 1000_000), to: new Date(SEED_START_MS + 1100_000) };
/** A cursor in the middle of the busy account's history: what page 2 sends. */
const middle = Buffer.from(`${SEED_START_MS + 10_000 * 1000}:vt_010000`).toString('base64url');

const bothTables = (name: string, query: AuditQuery, index: IndexRole): PlannedLookup[] => [
  { name: `${name} (verifications)`, table: 'verify_transactions', query, index },
  { name: `${name} (failures)`, table: 'request_errors', query, index },
];

export const PLANNED_LOOKUPS: PlannedLookup[] = [
  // The verify path: checks.duplicate on an account with a long history.
  { name: 'duplicate check', table: 'verify_transactions', query: { accountId: BUSY_ACCOUNT, transactionId: 'TX_002000', sendingBank: '004', limit: 100 }, index: 'duplicate' },
  {
    name: 'duplicate check, next page',
    table: 'verify_transactions',
    query: { accountId: BUSY_ACCOUNT, transactionId: 'TX_002000', sendingBank: '004', limit: 100, after: middle },
    index: 'duplicate',
  },
  // The admin API's filters.
  ...bothTables('by account', { accountId: BUSY_ACCOUNT, limit: 50 }, 'account_time'),
  ...bothTables('by account, next page', { accountId: BUSY_ACCOUNT, limit: 50, after: middle }, 'account_time'),
  ...bothTables('by account and time range', { accountId: BUSY_ACCOUNT, ...slice, limit: 50 }, 'account_time'),
  ...bothTables('newest of all', { limit: 50 }, 'time'),
  ...bothTables('by time range', { ...slice, limit: 50 }, 'time'),
  ...bothTables('by request', { requestId: 'req_002000', limit: 50 }, 'request_time'),
  ...bothTables('by request within an account', { accountId: BUSY_ACCOUNT, requestId: 'req_002000', limit: 50 }, 'request_time'),
  ...bothTables('by slip', { transactionId: 'TX_002000', limit: 50 }, 'transaction_time'),
  ...bothTables('by slip within an account', { accountId: BUSY_ACCOUNT, transactionId: 'TX_002000', limit: 50 }, 'transaction_time'),
];

/** The usage report's lookups (one account over a range; everyone over a range). */
export const PLANNED_USAGE: { name: string; query: { accountId?: string; from: Date; to: Date }; index: IndexRole }[] = [
  { name: 'usage of one account', query: { accountId: BUSY_ACCOUNT, ...slice }, index: 'account_time' },
  { name: 'usage of every account', query: { ...slice }, index: 'time' },
];

/** The rows every engine seeds, in engine-neutral form (times in ms). */
export interface SeedRow {
  id: string;
  accountId: string;
  requestId: string;
  transactionId: string;
  sendingBank: string;
  createdAt: number;
}

export function seedRows(): { verifications: SeedRow[]; failures: SeedRow[] } {
  const accountOf = (i: number) => (i % ACCOUNTS === 0 ? BUSY_ACCOUNT : `acc_other_${i % ACCOUNTS}`);
  const row = (i: number, prefix: string): SeedRow => ({
    id: `${prefix}_${String(i).padStart(6, '0')}`,
    accountId: accountOf(i),
    requestId: `req_${String(i).padStart(6, '0')}`,
    transactionId: `TX_${String(i).padStart(6, '0')}`,
    sendingBank: ['004', '014', '025'][i % 3]!,
    createdAt: SEED_START_MS + i * 1000,
  });
  return {
    verifications: Array.from({ length: SEEDED.verifications }, (_, i) => row(i, 'vt')),
    failures: Array.from({ length: SEEDED.failures }, (_, i) => row(i * 2, 're')),
  };
}

/** A node of PostgreSQL's EXPLAIN (FORMAT JSON) plan, with the fields the plan tests read. */
export interface PgPlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PgPlanNode[];
}

/** Every node of a plan, the root first. */
export const pgPlanNodes = (n: PgPlanNode): PgPlanNode[] => [n, ...(n.Plans ?? []).flatMap(pgPlanNodes)];
