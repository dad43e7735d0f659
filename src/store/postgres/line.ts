// LINE channels and the webhook events already taken, on PostgreSQL.
import type { LineChannel, LineEventClaim } from '../../domain/line/types.js';
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
  return (await db.run('DELETE FROM line_channels WHERE channel_id = $1', [row.noNul(channelId)])).rowCount === 1;
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
