// LINE channels and the webhook events already taken, on MongoDB.
import type { LineChannel, LineEventClaim } from '../../domain/line/types.js';
import { StoreError } from '../../domain/ports/store.js';
import { isDuplicateKey, mapped } from './connection.js';
import * as doc from './docs.js';
import type { Models } from './schemas.js';

export async function createLineChannel(m: Models, c: LineChannel): Promise<void> {
  await mapped(async () => {
    // The SQL engines' foreign key, checked by hand (no joins here).
    if (!(await m.accounts.exists({ _id: c.accountId }))) throw new StoreError('conflict', 'account does not exist');
    await m.lineChannels.create({
      _id: c.channelId,
      accountId: c.accountId,
      secret: c.sealedSecret,
      accessToken: c.sealedToken,
      lang: c.lang,
      checks: c.checks,
      matchPaymentRequests: c.matchPaymentRequests,
      hints: c.hints,
      createdAt: c.createdAt,
    });
  });
}

export async function getLineChannel(m: Models, channelId: string): Promise<LineChannel | null> {
  return mapped(async () => {
    const d = await m.lineChannels.findById(channelId).lean<doc.LineChannelDoc>();
    return d ? doc.lineChannel(d) : null;
  });
}

export async function listLineChannels(m: Models, accountId?: string): Promise<LineChannel[]> {
  return mapped(async () => (await m.lineChannels.find(accountId === undefined ? {} : { accountId }).sort({ createdAt: 1, _id: 1 }).lean<doc.LineChannelDoc[]>()).map(doc.lineChannel));
}

export async function deleteLineChannel(m: Models, channelId: string): Promise<boolean> {
  return mapped(async () => (await m.lineChannels.deleteOne({ _id: channelId })).deletedCount === 1);
}

export async function setLineChannelHints(m: Models, channelId: string, hints: boolean): Promise<LineChannel | null> {
  return mapped(async () => {
    const d = await m.lineChannels.findOneAndUpdate({ _id: channelId }, { $set: { hints } }, { new: true }).lean<doc.LineChannelDoc>();
    return d ? doc.lineChannel(d) : null;
  });
}

export async function pruneLineEvents(m: Models, before: Date): Promise<number> {
  return mapped(async () => (await m.lineEvents.deleteMany({ createdAt: { $lt: before } })).deletedCount);
}

export async function claimLineEvent(m: Models, c: LineEventClaim): Promise<boolean> {
  return mapped(async () => {
    try {
      await m.lineEvents.create({ _id: `${c.channelId}:${c.eventId}`, createdAt: c.at });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  });
}
