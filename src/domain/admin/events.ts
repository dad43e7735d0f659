// The trail of who did what through the admin surfaces, and why.
import type { Store } from '../ports/store.js';
import { newId } from '../keys/api-key.js';

export interface AdminEventInput {
  /** Given when a retry must not record the event twice; otherwise new. */
  id?: string;
  actor: string;
  action: string;
  targetId: string | null;
  reason?: string | null;
  details?: Record<string, unknown>;
}

export async function recordAdminEvent(store: Store, at: Date, input: AdminEventInput): Promise<void> {
  await store.insertAdminEvent({
    id: input.id ?? newId('evt'),
    actor: input.actor,
    action: input.action,
    targetId: input.targetId,
    reason: input.reason ?? null,
    details: input.details ?? {},
    createdAt: at,
  });
}
