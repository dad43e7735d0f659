// LINE channels and the webhook events already taken, on PostgreSQL.
import type { LineChannel, LineEventClaim, LineGroup, LineStaffTarget } from '../../domain/line/types.js';
import type { PgDb } from './db.js';
import * as row from './rows.js';

export async function createLineChannel(db: PgDb, c: LineChannel): Promise<void> {
  await db.run(
    'INSERT INTO line_channels (channel_id, account_id, secret, access_token, lang, checks, match_payment_requests, hints, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
    [row.noNul(c.channelId), c.accountId, c.sealedSecret, c.sealedToken, c.lang, c.checks, c.matchPaymentRequests, c.hints, c.createdAt],
  );
}

export async function getLineChannel(db: PgDb, channelId: string): Promise<LineChannel | null> {
  const { rows } = await db.run<row.LineChannelRow>('SELECT * FROM line_channels WHERE channel_id = $1', [row.noNul(channelId)]);
  return rows[0] ? row.lineChannel(rows[0]) : null;
}

export async function listLineChannels(db: PgDb, accountId?: string): Promise<LineChannel[]> {
  const { rows } =
    accountId === undefined
      ? await db.run<row.LineChannelRow>('SELECT * FROM line_channels ORDER BY created_at, channel_id')
      : await db.run<row.LineChannelRow>('SELECT * FROM line_channels WHERE account_id = $1 ORDER BY created_at, channel_id', [row.noNul(accountId)]);
  return rows.map(row.lineChannel);
}

export async function deleteLineChannel(db: PgDb, channelId: string): Promise<boolean> {
  const id = [row.noNul(channelId)];
  return db.tx(async (run) => {
    await run('DELETE FROM line_staff_targets WHERE channel_id = $1', id);
    await run('DELETE FROM line_groups WHERE channel_id = $1', id);
    return (await run('DELETE FROM line_channels WHERE channel_id = $1', id)).rowCount === 1;
  });
}

export async function setLineChannelHints(db: PgDb, channelId: string, hints: boolean): Promise<LineChannel | null> {
  const { rows } = await db.run<row.LineChannelRow>('UPDATE line_channels SET hints = $2 WHERE channel_id = $1 RETURNING *', [row.noNul(channelId), hints]);
  return rows[0] ? row.lineChannel(rows[0]) : null;
}

export async function pruneLineEvents(db: PgDb, before: Date): Promise<number> {
  return (await db.run('DELETE FROM line_events WHERE created_at < $1', [before])).rowCount ?? 0;
}

export async function claimLineEvent(db: PgDb, c: LineEventClaim): Promise<boolean> {
  const inserted = await db.run('INSERT INTO line_events (channel_id, event_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [row.noNul(c.channelId), row.noNul(c.eventId), c.at]);
  return inserted.rowCount === 1;
}

interface StaffTargetRow {
  channel_id: string;
  target_id: string;
  created_at: Date;
}
interface GroupRow {
  channel_id: string;
  group_id: string;
  kind: string;
  joined_at: Date;
  left_at: Date | null;
}

export async function addLineStaffTarget(db: PgDb, t: LineStaffTarget): Promise<boolean> {
  const inserted = await db.run('INSERT INTO line_staff_targets (channel_id, target_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [row.noNul(t.channelId), row.noNul(t.targetId), t.createdAt]);
  return inserted.rowCount === 1;
}

export async function removeLineStaffTarget(db: PgDb, channelId: string, targetId: string): Promise<boolean> {
  return (await db.run('DELETE FROM line_staff_targets WHERE channel_id = $1 AND target_id = $2', [row.noNul(channelId), row.noNul(targetId)])).rowCount === 1;
}

export async function listLineStaffTargets(db: PgDb, channelId: string): Promise<LineStaffTarget[]> {
  const { rows } = await db.run<StaffTargetRow>('SELECT * FROM line_staff_targets WHERE channel_id = $1 ORDER BY created_at, target_id', [row.noNul(channelId)]);
  return rows.map((r) => ({ channelId: r.channel_id, targetId: r.target_id, createdAt: r.created_at }));
}

export async function recordLineGroup(db: PgDb, g: { channelId: string; groupId: string; kind: LineGroup['kind']; at: Date; present: boolean }): Promise<void> {
  const ids = [row.noNul(g.channelId), row.noNul(g.groupId), g.kind, g.at];
  if (g.present) {
    await db.run('INSERT INTO line_groups (channel_id, group_id, kind, joined_at, left_at) VALUES ($1, $2, $3, $4, NULL) ON CONFLICT (channel_id, group_id) DO UPDATE SET joined_at = excluded.joined_at, left_at = NULL', ids);
  } else {
    await db.run('INSERT INTO line_groups (channel_id, group_id, kind, joined_at, left_at) VALUES ($1, $2, $3, $4, $4) ON CONFLICT (channel_id, group_id) DO UPDATE SET left_at = excluded.left_at', ids);
  }
}

export async function listLineGroups(db: PgDb, channelId: string): Promise<LineGroup[]> {
  const { rows } = await db.run<GroupRow>('SELECT * FROM line_groups WHERE channel_id = $1 ORDER BY joined_at, group_id', [row.noNul(channelId)]);
  return rows.map((r) => ({ channelId: r.channel_id, groupId: r.group_id, kind: r.kind === 'room' ? 'room' : 'group', joinedAt: r.joined_at, leftAt: r.left_at }));
}
