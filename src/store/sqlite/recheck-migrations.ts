// The SQLite schema's versions of re-checks (domain/rechecks), after
// payment-rules-migrations.ts in migrations.ts's list. Append new versions
// here; never edit one that has shipped.
export const SQLITE_RECHECK_MIGRATIONS: readonly string[] = [
  // One row per slip being re-checked. The worker reads the unfinished ones
  // by due time, GET and the per-account bound by account or request: the
  // partial indexes hold unfinished rows alone, so finished history costs
  // nothing to those reads.
  `
  CREATE TABLE rechecks (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    key_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    payment_request_id TEXT,
    qrcode TEXT NOT NULL,
    sending_bank TEXT NOT NULL,
    trans_ref TEXT NOT NULL,
    options TEXT,
    created_at INTEGER NOT NULL,
    deadline INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    attempt_id TEXT,
    outcome TEXT,
    finished_at INTEGER,
    result TEXT
  );
  CREATE INDEX rechecks_due ON rechecks (next_attempt_at, id) WHERE finished_at IS NULL;
  CREATE INDEX rechecks_open_account ON rechecks (account_id, created_at, id) WHERE finished_at IS NULL;
  CREATE INDEX rechecks_open_request ON rechecks (payment_request_id) WHERE finished_at IS NULL AND payment_request_id IS NOT NULL;
  `,
  // A slip sent in a LINE chat: the channel and customer its result is pushed to (null otherwise).
  `
  ALTER TABLE rechecks ADD COLUMN line_channel_id TEXT;
  ALTER TABLE rechecks ADD COLUMN line_user_id TEXT;
  `,
  // A slip sent again in a chat while it is re-checked is answered from its
  // open re-check (docs/line.md#a-slip-sent-again), read by the slip before any bank call.
  `
  CREATE INDEX rechecks_open_slip ON rechecks (account_id, trans_ref, sending_bank) WHERE finished_at IS NULL;
  `,
  // Retention and erasure redact finished re-checks (domain/retention.ts):
  // when their personal fields were removed. Each partial index holds the
  // finished ones not redacted yet, in a pass's order (by time; by account,
  // then time, for an erasure), so a batch reads from its cursor and never
  // passes over open re-checks or the redacted history.
  `
  ALTER TABLE rechecks ADD COLUMN redacted_at INTEGER;
  CREATE INDEX rechecks_unredacted ON rechecks (created_at, id) WHERE finished_at IS NOT NULL AND redacted_at IS NULL;
  CREATE INDEX rechecks_unredacted_account ON rechecks (account_id, created_at, id) WHERE finished_at IS NOT NULL AND redacted_at IS NULL;
  `,
];
