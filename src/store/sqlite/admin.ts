// Admin tokens and the admin event log on SQLite.
import type { AdminEvent, AdminToken } from '../../domain/types.js';
import type { Page } from '../../domain/ports/store.js';
import { decodeCursor, toPage } from '../cursor.js';
import type { Lite } from './connection.js';
import { mapError } from './errors.js';
import * as row from './rows.js';

export async function createAdminToken(lite: Lite, t: AdminToken): Promise<void> {
  try {
    lite.db
      .prepare('INSERT INTO admin_tokens (id, name, role, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(t.id, t.name, t.role, t.prefix, t.hash, t.createdAt.getTime());
  } catch (err) {
    throw mapError(err);
  }
}

export async function findAdminTokenByHash(lite: Lite, hash: string): Promise<AdminToken | null> {
  const r = lite.sql('SELECT * FROM admin_tokens WHERE hash = ?').get(hash) as row.AdminTokenRow | undefined;
  return r ? row.adminToken(r) : null;
}

export async function listAdminTokens(lite: Lite): Promise<AdminToken[]> {
  return (lite.sql('SELECT * FROM admin_tokens ORDER BY created_at DESC, id DESC').all() as row.AdminTokenRow[]).map(row.adminToken);
}

export async function revokeAdminToken(lite: Lite, id: string, at: Date): Promise<boolean> {
  return lite.sql('UPDATE admin_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at.getTime(), id).changes === 1;
}

export async function insertAdminEvent(lite: Lite, e: AdminEvent): Promise<void> {
  lite.db
    .prepare('INSERT OR IGNORE INTO admin_events (id, actor, action, target_id, reason, details, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(e.id, e.actor, e.action, e.targetId, e.reason, JSON.stringify(e.details), e.createdAt.getTime());
}

export async function listAdminEvents(lite: Lite, q: { targetId?: string; limit: number; after?: string | null }): Promise<Page<AdminEvent>> {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (q.targetId) {
    clauses.push('target_id = ?');
    params.push(q.targetId);
  }
  if (q.after) {
    const c = decodeCursor(q.after);
    clauses.push('(created_at < ? OR (created_at = ? AND id < ?))');
    params.push(c.at, c.at, c.id);
  }
  const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
  const rows = lite.sql(`SELECT * FROM admin_events ${where} ORDER BY created_at DESC, id DESC LIMIT ?`).all(...params, q.limit + 1);
  return toPage((rows as row.AdminEventRow[]).map(row.adminEvent), q.limit, (e) => e.createdAt);
}
