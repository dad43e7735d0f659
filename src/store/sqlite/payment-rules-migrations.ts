// The SQLite schema's versions after payment requests arrived, in order: they
// follow migrations.ts's list (spread at its end). Append new versions here;
// never edit one that has shipped.
export const SQLITE_PAYMENT_RULES_MIGRATIONS: readonly string[] = [
  // Each payment request keeps its own target (PaymentTarget), copied from
  // its receiver when it is made, so that removing or editing the receiver
  // orphans no order. Existing requests are back-filled from their receiver
  // where it still exists.
  `
  ALTER TABLE payment_requests ADD COLUMN target_kind TEXT;
  ALTER TABLE payment_requests ADD COLUMN target_bank_code TEXT;
  ALTER TABLE payment_requests ADD COLUMN target_number TEXT;
  ALTER TABLE payment_requests ADD COLUMN target_proxy_type TEXT;
  ALTER TABLE payment_requests ADD COLUMN target_name_th TEXT;
  ALTER TABLE payment_requests ADD COLUMN target_name_en TEXT;
  UPDATE payment_requests SET
    target_kind = r.kind, target_bank_code = r.bank_code, target_number = r.number,
    target_proxy_type = r.proxy_type, target_name_th = r.name_th, target_name_en = r.name_en
  FROM receivers r WHERE r.id = payment_requests.receiver_id;
  `,
  // LINE matching reads an account's pending requests: this index holds
  // only those, so the account's closed history is never read.
  `
  CREATE INDEX payment_requests_pending ON payment_requests (account_id, created_at, id) WHERE status = 'pending';
  `,
  // The payment verdict kept with a verification sent for a payment request
  // (domain/payments): the request, its status after the slip, why the slip
  // did not pay it. Null on every other record.
  `
  ALTER TABLE verify_transactions ADD COLUMN payment_request_id TEXT;
  ALTER TABLE verify_transactions ADD COLUMN payment_status TEXT;
  ALTER TABLE verify_transactions ADD COLUMN payment_reason TEXT;
  `,
  // When a webhook delivery finished (delivered or failed; null while pending
  // or retrying), for the retention pass that deletes finished deliveries
  // after WEBHOOK_DELIVERY_RETENTION_DAYS: the partial index holds only
  // finished ones, in the order the pass deletes them. Deliveries finished
  // before this version count from their delivery, or their last due time.
  `
  ALTER TABLE webhook_deliveries ADD COLUMN finished_at INTEGER;
  UPDATE webhook_deliveries SET finished_at = coalesce(delivered_at, next_attempt_at) WHERE state <> 'pending';
  CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (finished_at, id) WHERE finished_at IS NOT NULL;
  `,
  // The checkout page's way back to the shop, and the slip checks its visitors made (docs/payments.md#checkout-page).
  `
  ALTER TABLE payment_requests ADD COLUMN success_url TEXT;
  ALTER TABLE payment_requests ADD COLUMN checkout_checks INTEGER NOT NULL DEFAULT 0;
  `,
  // The account.credits_low threshold (null: off) and whether the fall below
  // it was announced; a top-up back above it re-arms (domain/credits-low.ts).
  `
  ALTER TABLE accounts ADD COLUMN credits_low_at INTEGER;
  ALTER TABLE accounts ADD COLUMN credits_low_notified INTEGER NOT NULL DEFAULT 0;
  `,
  // LINE channels are quiet in ordinary chat (docs/line.md#quiet-by-default):
  // only a slip is answered, unless the channel turns the hint back on.
  `
  ALTER TABLE line_channels ADD COLUMN hints INTEGER NOT NULL DEFAULT 0;
  `,
  // Who at the shop is pushed the slips that need a person, and the groups
  // the channel's bot was added to (docs/line.md#staff-notifications).
  `
  CREATE TABLE line_staff_targets (
    channel_id TEXT NOT NULL,
    target_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (channel_id, target_id)
  );
  CREATE TABLE line_groups (
    channel_id TEXT NOT NULL,
    group_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    joined_at INTEGER NOT NULL,
    left_at INTEGER,
    PRIMARY KEY (channel_id, group_id)
  );
  `,
];
