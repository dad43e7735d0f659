// Audit records for accountants: verifications and failures as flat rows,
// read page by page through the store's keyset cursors (newest first), so an
// export of any size holds one page per record type in memory. Formatting
// rules: amounts as decimal text with two places ("250.00"), times in
// Bangkok with their offset, text as the bank sent it (Thai intact).
import { InputError } from '../errors.js';
import type { AuditQuery, Page, Store } from '../ports/store.js';
import type { RequestErrorRecord, VerifyTransactionRecord } from '../types.js';

export type ExportRecords = 'verified' | 'failed' | 'all';
export type ExportFilter = Omit<AuditQuery, 'limit' | 'after'>;

export const EXPORT_COLUMNS = [
  'record',
  'time',
  'id',
  'account_id',
  'key_id',
  'request_id',
  'transaction_id',
  'amount',
  'sending_bank',
  'receiving_bank',
  'sender_name',
  'sender_name_en',
  'sender_account',
  'receiver_name',
  'receiver_name_en',
  'receiver_account',
  'receiver_promptpay',
  'upstream',
  'latency_ms',
  'source',
  'error_kind',
  'error_message',
  // When the personal data was removed (retention or erasure): an empty
  // name is then an erased one, not one the bank never sent.
  'redacted_at',
  // A verification sent for a payment request: the request, its status after
  // the slip, and why the slip did not pay it (empty when it did).
  'payment_request_id',
  'payment_status',
  'payment_reason',
] as const;

export type ExportRow = Record<(typeof EXPORT_COLUMNS)[number], string>;

const PAGE_SIZE = 500;
const BANGKOK_OFFSET_MS = 7 * 3_600_000;

/** 2026-11-25T23:10:00.123+07:00 */
function bangkokTime(at: Date): string {
  return new Date(at.getTime() + BANGKOK_OFFSET_MS).toISOString().replace('Z', '+07:00');
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;
const ZONED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A time bound as people type it: `2026-11-01` (a Bangkok day: its start for
 * `from`, and for `to` its end, so from..to includes both days),
 * `2026-11-01T09:30` (Bangkok wall clock), or ISO 8601 with an offset.
 */
export function parseTimeBound(text: string, bound: 'from' | 'to'): Date {
  const value = text.trim();
  let at: number;
  if (DAY.test(value)) at = Date.parse(`${value}T00:00:00+07:00`) + (bound === 'to' ? 86_400_000 : 0);
  else if (LOCAL_TIME.test(value)) at = Date.parse(`${value}+07:00`);
  else if (ZONED_TIME.test(value)) at = Date.parse(value);
  else at = Number.NaN;
  if (Number.isNaN(at)) {
    throw new InputError(`${bound}: "${text}" is not a time; use 2026-11-01 (a Bangkok day), 2026-11-01T09:30 (Bangkok) or 2026-11-01T02:30:00Z`);
  }
  return new Date(at);
}

/** Refuses what would make an export silently empty or wrong: an unknown account, an inverted range. */
export async function checkExportFilter(store: Store, filter: ExportFilter): Promise<void> {
  if (filter.from && filter.to && filter.from.getTime() >= filter.to.getTime()) {
    throw new InputError(`the time range is inverted or empty: from ${bangkokTime(filter.from)} is not before to ${bangkokTime(filter.to)}`);
  }
  if (filter.accountId && !(await store.getAccount(filter.accountId))) throw new InputError(`unknown account ${filter.accountId}`);
}

/** Rows newest first; with 'all', verifications and failures merged by time. */
export async function* exportRows(store: Store, filter: ExportFilter, records: ExportRecords): AsyncGenerator<ExportRow> {
  // An error kind narrows failures only.
  const verified = records === 'failed' ? empty() : pages((q) => store.listVerifyTransactions(q), { ...filter, kind: undefined }, verifiedRow);
  const failed = records === 'verified' ? empty() : pages((q) => store.listRequestErrors(q), filter, failedRow);
  let a = await verified.next();
  let b = await failed.next();
  while (!a.done || !b.done) {
    if (!a.done && (b.done || newerFirst(a.value, b.value))) {
      yield a.value.row;
      a = await verified.next();
    } else if (!b.done) {
      yield b.value.row;
      b = await failed.next();
    }
  }
}

interface Timed {
  at: number;
  id: string;
  row: ExportRow;
}

const newerFirst = (x: Timed, y: Timed) => x.at > y.at || (x.at === y.at && x.id > y.id);

async function* empty(): AsyncGenerator<Timed> {}

async function* pages<T extends { id: string; createdAt: Date }>(
  list: (q: AuditQuery) => Promise<Page<T>>,
  filter: ExportFilter,
  toRow: (r: T) => ExportRow,
): AsyncGenerator<Timed> {
  let after: string | null = null;
  do {
    const page: Page<T> = await list({ ...filter, limit: PAGE_SIZE, after });
    for (const r of page.items) yield { at: r.createdAt.getTime(), id: r.id, row: toRow(r) };
    after = page.next;
  } while (after);
}

const BLANK: ExportRow = Object.fromEntries(EXPORT_COLUMNS.map((c) => [c, ''])) as ExportRow;

function verifiedRow(r: VerifyTransactionRecord): ExportRow {
  // Optional reads: a record whose personal data was redacted keeps no names.
  const slip: Partial<VerifyTransactionRecord['response']> = r.response ?? {};
  return {
    ...BLANK,
    record: 'verified',
    time: bangkokTime(r.createdAt),
    id: r.id,
    account_id: r.accountId,
    key_id: r.keyId,
    request_id: r.requestId,
    transaction_id: r.transactionId,
    amount: r.amount.toFixed(2),
    sending_bank: r.sendingBank,
    receiving_bank: r.receivingBank,
    sender_name: slip.senderName ?? '',
    sender_name_en: slip.senderNameEN ?? '',
    sender_account: slip.senderBankAccountNumber ?? '',
    receiver_name: slip.receiverName ?? '',
    receiver_name_en: slip.receiverNameEN ?? '',
    receiver_account: slip.receiverBankAccountNumber ?? '',
    receiver_promptpay: slip.receiverPromptpay ?? '',
    upstream: r.upstream,
    latency_ms: String(r.latencyMs),
    source: r.source ?? 'qrcode',
    redacted_at: r.redactedAt ? bangkokTime(r.redactedAt) : '',
    payment_request_id: r.payment?.requestId ?? '',
    payment_status: r.payment?.status ?? '',
    payment_reason: r.payment?.reason ?? '',
  };
}

function failedRow(r: RequestErrorRecord): ExportRow {
  return {
    ...BLANK,
    record: 'failed',
    time: bangkokTime(r.createdAt),
    id: r.id,
    account_id: r.accountId ?? '',
    key_id: r.keyId ?? '',
    request_id: r.requestId,
    transaction_id: r.transactionId ?? '',
    sending_bank: r.sendingBank ?? '',
    upstream: r.upstream ?? '',
    latency_ms: r.latencyMs === null ? '' : String(r.latencyMs),
    error_kind: r.kind,
    error_message: r.message,
  };
}

/** UTF-8 byte order mark: spreadsheet programs read the file as UTF-8 (Thai) only with it. */
const CSV_BOM = '\uFEFF';

function csvHeader(): string {
  return `${EXPORT_COLUMNS.join(',')}\r\n`;
}

function csvLine(row: ExportRow): string {
  return `${EXPORT_COLUMNS.map((c) => csvCell(row[c])).join(',')}\r\n`;
}

function jsonLine(row: ExportRow): string {
  return `${JSON.stringify(row)}\n`;
}

/**
 * RFC 4180 quoting, and text a spreadsheet would run as a formula (a name
 * starting with =, +, -, @) gets a leading apostrophe: a bank's display name
 * is someone else's input.
 */
function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !/^-?\d+(\.\d+)?$/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The export as text chunks: header first (CSV: after the BOM), one line per row. */
export async function* exportLines(rows: AsyncIterable<ExportRow>, format: 'csv' | 'jsonl'): AsyncGenerator<string> {
  if (format === 'csv') yield CSV_BOM + csvHeader();
  for await (const row of rows) yield format === 'csv' ? csvLine(row) : jsonLine(row);
}
