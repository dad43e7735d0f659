// LINE channels and the webhook events already taken, on SQLite.
import type { LineChannel, LineEventClaim } from '../../domain/line/types.js';
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
  return lite.sql('DELETE FROM line_channels WHERE channel_id = ?').run(channelId).changes === 1;
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
