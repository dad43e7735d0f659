// Storage port: LINE channels and the event claims that stop redeliveries (domain/line).
import type { LineChannel, LineEventClaim, LineGroup, LineStaffTarget } from '../line/types.js';

// LINE channels (domain/line). One channel id is connected to one account at a time.
export interface LineStore {
  /** Throws StoreError 'conflict' when the channel id is connected already or the account is unknown. */
  createLineChannel(channel: LineChannel): Promise<void>;
  getLineChannel(channelId: string): Promise<LineChannel | null>;
  /** Every connected channel, or one account's; oldest first. */
  listLineChannels(accountId?: string): Promise<LineChannel[]>;
  /** False for a channel not connected. Its staff targets and groups go with it. */
  deleteLineChannel(channelId: string): Promise<boolean>;
  /** False when the target is on the channel's list already. */
  addLineStaffTarget(target: LineStaffTarget): Promise<boolean>;
  /** False when it was not on the list. */
  removeLineStaffTarget(channelId: string, targetId: string): Promise<boolean>;
  /** Oldest first. */
  listLineStaffTargets(channelId: string): Promise<LineStaffTarget[]>;
  /** A join (`present`) or leave event of a group or room: joined again clears `leftAt`. */
  recordLineGroup(group: { channelId: string; groupId: string; kind: LineGroup['kind']; at: Date; present: boolean }): Promise<void>;
  /** Every group the channel was added to, left ones included; oldest join first. */
  listLineGroups(channelId: string): Promise<LineGroup[]>;
  /** Turns the hint for chat that is not a slip on or off; null for a channel not connected. */
  setLineChannelHints(channelId: string, hints: boolean): Promise<LineChannel | null>;
  /**
   * Records that a webhook event was taken for processing. True the first
   * time; false for a redelivery of an event already taken (any process,
   * any restart), which must not be processed again.
   */
  claimLineEvent(claim: LineEventClaim): Promise<boolean>;
  /** Forgets event claims taken before `before` (LINE stops redelivering long before); resolves to how many. */
  pruneLineEvents(before: Date): Promise<number>;
}
