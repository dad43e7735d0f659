// Storage port: an account's registered receivers and its receiver policy.
import type { Receiver, ReceiverPolicy } from '../types.js';

export interface ReceiverStore {
  /** Throws StoreError 'conflict' for an unknown account or a used id. */
  createReceiver(receiver: Receiver): Promise<void>;
  getReceiver(id: string): Promise<Receiver | null>;
  /** The account's receivers, active or not, oldest first. */
  listReceivers(accountId: string): Promise<Receiver[]>;
  /** False for an unknown receiver. */
  setReceiverActive(id: string, active: boolean): Promise<boolean>;
  /** False for an unknown receiver. */
  deleteReceiver(id: string): Promise<boolean>;
  /** False for an unknown or deleted account. */
  setReceiverPolicy(accountId: string, policy: ReceiverPolicy): Promise<boolean>;
}
