// Registered receivers and the receiver policy on MongoDB.
import type { Receiver, ReceiverPolicy } from '../../domain/types.js';
import { StoreError } from '../../domain/ports/store.js';
import { mapped } from './connection.js';
import * as doc from './docs.js';
import type { Models } from './schemas.js';

export async function createReceiver(m: Models, r: Receiver): Promise<void> {
  await mapped(async () => {
    // The SQL engines' foreign key, checked by hand (no joins here).
    if (!(await m.accounts.exists({ _id: r.accountId }))) throw new StoreError('conflict', 'account does not exist');
    const { id, ...fields } = r;
    await m.receivers.create({ _id: id, ...fields });
  });
}

export async function getReceiver(m: Models, id: string): Promise<Receiver | null> {
  return mapped(async () => {
    const d = await m.receivers.findById(id).lean<doc.ReceiverDoc>();
    return d ? doc.receiver(d) : null;
  });
}

export async function listReceivers(m: Models, accountId: string): Promise<Receiver[]> {
  return mapped(async () => (await m.receivers.find({ accountId }).sort({ createdAt: 1, _id: 1 }).lean<doc.ReceiverDoc[]>()).map(doc.receiver));
}

export async function setReceiverActive(m: Models, id: string, active: boolean): Promise<boolean> {
  return mapped(async () => (await m.receivers.updateOne({ _id: id }, { $set: { active } })).matchedCount === 1);
}

export async function deleteReceiver(m: Models, id: string): Promise<boolean> {
  return mapped(async () => (await m.receivers.deleteOne({ _id: id })).deletedCount === 1);
}

export async function setReceiverPolicy(m: Models, accountId: string, policy: ReceiverPolicy): Promise<boolean> {
  return mapped(async () => (await m.accounts.updateOne({ _id: accountId, deletedAt: null }, { $set: { receiverPolicy: policy } })).matchedCount === 1);
}
