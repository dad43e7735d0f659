// Leases of serving processes on MongoDB. Expiry is written and judged by
// the process clock of whoever writes or reads it (FerretDB has no update
// pipelines, so the server's $$NOW is not available): hosts sharing one
// database must keep their clocks in step (NTP), see SECURITY.md.
import type { HoldBook } from './holds.js';
import { rawAccounts, type Models } from './schemas.js';
import type { RecoveryResult } from '../../domain/ports/store.js';

export class Leases {
  constructor(
    private readonly m: Models,
    private readonly holds: HoldBook,
  ) {}

  async start(instanceId: string, ttlMs: number, now: Date): Promise<void> {
    await this.m.instanceLeases.create({ _id: instanceId, startedAt: now, expiresAt: new Date(now.getTime() + ttlMs) });
  }

  /** Only a live lease is extended: once expired, its holds are recovery's. */
  async renew(instanceId: string, ttlMs: number, now: Date): Promise<boolean> {
    const r = await this.m.instanceLeases.updateOne({ _id: instanceId, expiresAt: { $gte: now } }, { $set: { expiresAt: new Date(now.getTime() + ttlMs) } });
    return r.matchedCount === 1;
  }

  async end(instanceId: string): Promise<void> {
    await this.m.instanceLeases.deleteOne({ _id: instanceId });
  }

  /**
   * Recovers the holds of expired leases and aged ones (holds.ts makes
   * concurrent recoverers agree), then drops the records of expired leases
   * that hold nothing any more.
   */
  async recoverHolds(olderThan: Date, now: Date): Promise<RecoveryResult> {
    const expired = await this.m.instanceLeases.find({ expiresAt: { $lt: now } }, { _id: 1 }).lean<{ _id: string }[]>();
    const dead = expired.map((l) => l._id);
    const result = await this.holds.recover(olderThan, now, dead);
    for (const id of dead) {
      if (await rawAccounts(this.m).findOne({ 'holds.instanceId': id }, { projection: { _id: 1 } })) continue;
      await this.m.instanceLeases.deleteOne({ _id: id, expiresAt: { $lt: now } });
    }
    return result;
  }
}
