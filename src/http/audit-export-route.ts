// GET /export/audit.csv (and .jsonl) on the admin listener: the dashboard's
// audit page downloads its current filter. Same bearer token as GraphQL and
// the same role the audit page's queries need; rows stream page by page with
// backpressure, so a year of records costs one page of memory.
import type { Express, Request, Response } from 'express';
import type { Logger } from 'pino';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkExportFilter, exportLines, exportRows, parseTimeBound, type ExportFilter } from '../domain/admin/audit-export.js';
import { roleAllows, type AdminTokenService } from '../domain/admin/tokens.js';
import { InputError } from '../domain/errors.js';
import { slipReference } from '../domain/verify/slip-qr.js';
import type { Store } from '../domain/ports/store.js';
import { ERROR_KINDS, type AdminRole, type ErrorKind } from '../domain/types.js';
import { requireAdminToken, signedInAdmin } from '../admin-auth.js';
import { sendError } from './json-errors.js';

/** The audit page reads verifications and failures with the viewer role; the download is the same data. */
const EXPORT_ROLE: AdminRole = 'viewer';

export interface AuditExportDeps {
  store: Store;
  adminTokens: AdminTokenService;
  logger: Logger;
}

const TEXT_PARAMS = ['accountId', 'upstream', 'transactionId', 'sendingBank', 'receivingBank'] as const;

export function mountAuditExport(app: Express, deps: AuditExportDeps): void {
  for (const format of ['csv', 'jsonl'] as const) {
    app.get(`/export/audit.${format}`, requireAdminToken(deps.adminTokens), (req, res) => sendExport(req, res, format, deps));
  }
}

async function sendExport(req: Request, res: Response, format: 'csv' | 'jsonl', deps: AuditExportDeps): Promise<void> {
  const admin = signedInAdmin(res);
  if (!roleAllows(admin.role, EXPORT_ROLE)) return sendError(res, 403, `exports need the ${EXPORT_ROLE} role`);
  let filter: ExportFilter;
  let type: 'verified' | 'failed';
  try {
    ({ filter, type } = readQuery(req.query));
    await checkExportFilter(deps.store, filter);
  } catch (err) {
    if (err instanceof InputError) return sendError(res, 400, err.message);
    throw err;
  }
  const day = new Date().toISOString().slice(0, 10);
  res.setHeader('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
  res.setHeader('content-disposition', `attachment; filename="slipgate-${type === 'verified' ? 'verifications' : 'failures'}-${day}.${format}"`);
  res.setHeader('cache-control', 'no-store');
  try {
    await pipeline(Readable.from(exportLines(exportRows(deps.store, filter, type), format)), res);
  } catch (err) {
    // Headers are gone: a cut connection is the only way left to say the file is incomplete.
    deps.logger.warn({ err }, 'audit export ended early');
    res.destroy();
  }
}

/** The audit page's filter: `type` verifications|failures, the GraphQL filter's fields, times as ISO 8601. */
function readQuery(query: Request['query']): { filter: ExportFilter; type: 'verified' | 'failed' } {
  const text = (name: string): string | undefined => {
    const v = query[name];
    if (v === undefined || v === '') return undefined;
    if (typeof v !== 'string' || v.length > 200) throw new InputError(`${name} must be one text value`);
    return v;
  };
  const typeText = text('type') ?? 'verifications';
  if (typeText !== 'verifications' && typeText !== 'failures') throw new InputError('type must be verifications or failures');
  const kind = text('kind');
  if (kind !== undefined && !(ERROR_KINDS as readonly string[]).includes(kind)) throw new InputError(`kind must be one of ${ERROR_KINDS.join(', ')}`);
  const from = text('from');
  const to = text('to');
  const filter: ExportFilter = {
    from: from === undefined ? undefined : parseTimeBound(from, 'from'),
    to: to === undefined ? undefined : parseTimeBound(to, 'to'),
    kind: kind as ErrorKind | undefined,
  };
  for (const name of TEXT_PARAMS) filter[name] = text(name);
  // Records name a slip by its upper-case identity (slip-qr.ts): any spelling typed finds it.
  if (filter.transactionId !== undefined) filter.transactionId = slipReference(filter.transactionId);
  return { filter, type: typeText === 'failures' ? 'failed' : 'verified' };
}
