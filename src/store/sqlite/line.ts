// LINE channels and the webhook events already taken, on SQLite.
import type { LineChannel, LineEventClaim, LineGroup, LineStaffTarget } from '../../domain/line/types.js';
import type { Lite } from './connection.js';
import { mapError } from './errors.js';
import * as row from './rows.js';

export async function createLineChannel(lite: Lite, c: LineChannel): Promise<void> {
  try {
    lite
      .sql('INSERT INTO line_channels (channel_id, account_id, secret, access_token, lang, checks, match_payment_requests, hints, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(c.channelId, c.accountId, c.sealedSecret, c.sealedToken, c.lang, c.checks ? 1 : 0, c.matchPaymentRequests ? 1 : 0, c.hints ? 1 : 0, c.createdAt.getTime());
  } catch (err) {
    throw mapError(err);
  }
}

export async function getLineChannel(lite: Lite, channelId: string): Promise<LineChannel | null> {
  const r = lite.sql('SELECT * FROM line_channels WHERE channel_id = ?').get(channelId) as row.LineChannelRow | undefined;
  return r ? row.lineChannel(r) : null;
}

export async function listLineChannels(lite: Lite, accountId?: string): Promise<LineChannel[]> {
  const rows =
    accountId === undefined
      ? lite.sql('SELECT * FROM line_channels ORDER BY created_at, channel_id').all()
      : lite.sql('SELECT * FROM line_channels WHERE account_id = ? ORDER BY created_at, channel_id').all(accountId);
  return (rows as row.LineChannelRow[]).map(row.lineChannel);
}

export async function deleteLineChannel(lite: Lite, channelId: string): Promise<boolean> {
  return lite.db.transaction(() => {
    lite.sql('DELETE FROM line_staff_targets WHERE channel_id = ?').run(channelId);
    lite.sql('DELETE FROM line_groups WHERE channel_id = ?').run(channelId);
    return lite.sql('DELETE FROM line_channels WHERE channel_id = ?').run(channelId).changes === 1;
  })();
}

export async function setLineChannelHints(lite: Lite, channelId: string, hints: boolean): Promise<LineChannel | null> {
  if (lite.sql('UPDATE line_channels SET hints = ? WHERE channel_id = ?').run(hints ? 1 : 0, channelId).changes !== 1) return null;
  return getLineChannel(lite, channelId);
}

export async function pruneLineEvents(lite: Lite, before: Date): Promise<number> {
  return lite.sql('DELETE FROM line_events WHERE created_at < ?').run(before.getTime()).changes;
}

export async function claimLineEvent(lite: Lite, c: LineEventClaim): Promise<boolean> {
  return lite.sql('INSERT OR IGNORE INTO line_events (channel_id, event_id, created_at) VALUES (?, ?, ?)').run(c.channelId, c.eventId, c.at.getTime()).changes === 1;
}

interface StaffTargetRow {
  channel_id: string;
  target_id: string;
  created_at: number;
}
interface GroupRow {
  channel_id: string;
  group_id: string;
  kind: string;
  joined_at: number;
  left_at: number | null;
}

export async function addLineStaffTarget(lite: Lite, t: LineStaffTarget): Promise<boolean> {
  return lite.sql('INSERT OR IGNORE INTO line_staff_targets (channel_id, target_id, created_at) VALUES (?, ?, ?)').run(t.channelId, t.targetId, t.createdAt.getTime()).changes === 1;
}

export async function removeLineStaffTarget(lite: Lite, channelId: string, targetId: string): Promise<boolean> {
  return lite.sql('DELETE FROM line_staff_targets WHERE channel_id = ? AND target_id = ?').run(channelId, targetId).changes === 1;
}

export async function listLineStaffTargets(lite: Lite, channelId: string): Promise<LineStaffTarget[]> {
  const rows = lite.sql('SELECT * FROM line_staff_targets WHERE channel_id = ? ORDER BY created_at, target_id').all(channelId) as StaffTargetRow[];
  return rows.map((r) => ({ channelId: r.channel_id, targetId: r.target_id, createdAt: new Date(r.created_at) }));
}

export async function recordLineGroup(lite: Lite, g: { channelId: string; groupId: string; kind: LineGroup['kind']; at: Date; present: boolean }): Promise<void> {
  const at = g.at.getTime();
  if (g.present) {
    lite
      .sql('INSERT INTO line_groups (channel_id, group_id, kind, joined_at, left_at) VALUES (?, ?, ?, ?, NULL) ON CONFLICT (channel_id, group_id) DO UPDATE SET joined_at = excluded.joined_at, left_at = NULL')
      .run(g.channelId, g.groupId, g.kind, at);
  } else {
    lite
      .sql('INSERT INTO line_groups (channel_id, group_id, kind, joined_at, left_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (channel_id, group_id) DO UPDATE SET left_at = excluded.left_at')
      .run(g.channelId, g.groupId, g.kind, at, at);
  }
}

export async function listLineGroups(lite: Lite, channelId: string): Promise<LineGroup[]> {
  const rows = lite.sql('SELECT * FROM line_groups WHERE channel_id = ? ORDER BY joined_at, group_id').all(channelId) as GroupRow[];
  return rows.map((r) => ({ channelId: r.channel_id, groupId: r.group_id, kind: r.kind === 'room' ? 'room' : 'group', joinedAt: new Date(r.joined_at), leftAt: r.left_at === null ? null : new Date(r.left_at) }));
}
