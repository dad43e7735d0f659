// Admin tokens and the admin event log on PostgreSQL.
import type { AdminEvent, AdminToken } from '../../domain/types.js';
import type { Page } from '../../domain/ports/store.js';
import { decodeCursor, toPage } from '../cursor.js';
import { time, type PgDb } from './db.js';
import * as row from './rows.js';
import { numbered } from './sql.js';

export async function createAdminToken(db: PgDb, t: AdminToken): Promise<void> {
  await db.run('INSERT INTO admin_tokens (id, name, role, prefix, hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    t.id,
    t.name,
    t.role,
    t.prefix,
    t.hash,
    t.createdAt,
  ]);
}

export async function findAdminTokenByHash(db: PgDb, hash: string): Promise<AdminToken | null> {
  const { rows } = await db.run<row.AdminTokenRow>('SELECT * FROM admin_tokens WHERE hash = $1', [hash]);
  return rows[0] ? row.adminToken(rows[0]) : null;
}

export async function listAdminTokens(db: PgDb): Promise<AdminToken[]> {
  const { rows } = await db.run<row.AdminTokenRow>('SELECT * FROM admin_tokens ORDER BY created_at DESC, id DESC');
  return rows.map(row.adminToken);
}

export async function revokeAdminToken(db: PgDb, id: string, at: Date): Promise<boolean> {
  const r = await db.run('UPDATE admin_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id]);
  return r.rowCount === 1;
}

export async function insertAdminEvent(db: PgDb, e: AdminEvent): Promise<void> {
  await db.run('INSERT INTO admin_events (id, actor, action, target_id, reason, details, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING', row.adminEventParams(e));
}

export async function listAdminEvents(db: PgDb, q: { targetId?: string; limit: number; after?: string | null }): Promise<Page<AdminEvent>> {
  const clauses: string[] = [];
  const values: unknown[] = [];
  if (q.targetId) {
    clauses.push('target_id = ?');
    values.push(q.targetId);
  }
  if (q.after) {
    const c = decodeCursor(q.after);
    clauses.push('(created_at < ? OR (created_at = ? AND id < ?))');
    values.push(time(c.at), time(c.at), c.id);
  }
  const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
  const { rows } = await db.run<row.AdminEventRow>(numbered(`SELECT * FROM admin_events ${where} ORDER BY created_at DESC, id DESC LIMIT ?`), [...values, q.limit + 1]);
  return toPage(rows.map(row.adminEvent), q.limit, (e) => e.createdAt);
}
