// LINE channels and the webhook events already taken, on MongoDB.
import type { LineChannel, LineEventClaim, LineGroup, LineStaffTarget } from '../../domain/line/types.js';
import type { LineGroupDoc, LineStaffTargetDoc } from './doc-types.js';
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
  return mapped(async () => {
    const deleted = (await m.lineChannels.deleteOne({ _id: channelId })).deletedCount === 1;
    // No transaction here: a crash in between leaves entries no channel reads, removed by the next disconnect of that id.
    await m.lineStaffTargets.deleteMany({ channelId });
    await m.lineGroups.deleteMany({ channelId });
    return deleted;
  });
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

export async function addLineStaffTarget(m: Models, t: LineStaffTarget): Promise<boolean> {
  return mapped(async () => {
    try {
      await m.lineStaffTargets.create({ _id: `${t.channelId}:${t.targetId}`, channelId: t.channelId, targetId: t.targetId, createdAt: t.createdAt });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  });
}

export async function removeLineStaffTarget(m: Models, channelId: string, targetId: string): Promise<boolean> {
  return mapped(async () => (await m.lineStaffTargets.deleteOne({ _id: `${channelId}:${targetId}` })).deletedCount === 1);
}

export async function listLineStaffTargets(m: Models, channelId: string): Promise<LineStaffTarget[]> {
  return mapped(async () => {
    const docs = await m.lineStaffTargets.find({ channelId }).sort({ createdAt: 1, targetId: 1 }).lean<LineStaffTargetDoc[]>();
    return docs.map((d) => ({ channelId: d.channelId, targetId: d.targetId, createdAt: d.createdAt }));
  });
}

export async function recordLineGroup(m: Models, g: { channelId: string; groupId: string; kind: LineGroup['kind']; at: Date; present: boolean }): Promise<void> {
  await mapped(async () => {
    const set = g.present ? { joinedAt: g.at, leftAt: null } : { leftAt: g.at };
    const insert = g.present ? { channelId: g.channelId, groupId: g.groupId, kind: g.kind } : { channelId: g.channelId, groupId: g.groupId, kind: g.kind, joinedAt: g.at };
    await m.lineGroups.updateOne({ _id: `${g.channelId}:${g.groupId}` }, { $set: set, $setOnInsert: insert }, { upsert: true });
  });
}

export async function listLineGroups(m: Models, channelId: string): Promise<LineGroup[]> {
  return mapped(async () => {
    const docs = await m.lineGroups.find({ channelId }).sort({ joinedAt: 1, groupId: 1 }).lean<LineGroupDoc[]>();
    return docs.map((d) => ({ channelId: d.channelId, groupId: d.groupId, kind: d.kind === 'room' ? 'room' : 'group', joinedAt: d.joinedAt, leftAt: d.leftAt ?? null }));
  });
}
