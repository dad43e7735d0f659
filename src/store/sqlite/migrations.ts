import { SQLITE_PAYMENT_RULES_MIGRATIONS } from './payment-rules-migrations.js';
import { SQLITE_RECHECK_MIGRATIONS } from './recheck-migrations.js';
import { SLIP_REFERENCES_MIGRATION } from '../sql/slip-references.js';

// Versioned schema for the embedded store. Append new versions (at the end of
// payment-rules-migrations.ts); never edit one that has shipped. Times are
// Unix milliseconds.
export const SQLITE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    credits INTEGER NOT NULL DEFAULT 0 CHECK (credits >= 0),
    usage INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    deleted_at INTEGER
  );
  CREATE INDEX accounts_created ON accounts (created_at, id);

  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    prefix TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at INTEGER
  );
  CREATE INDEX api_keys_account ON api_keys (account_id);

  CREATE TABLE credit_holds (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    key_id TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX credit_holds_account ON credit_holds (account_id);
  CREATE INDEX credit_holds_created ON credit_holds (created_at);

  CREATE TABLE verify_transactions (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    qrcode TEXT NOT NULL,
    transaction_id TEXT NOT NULL,
    amount REAL NOT NULL,
    sending_bank TEXT NOT NULL,
    receiving_bank TEXT NOT NULL,
    upstream TEXT NOT NULL,
    latency_ms INTEGER NOT NULL,
    response TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX verify_transactions_account_time ON verify_transactions (account_id, created_at, id);
  CREATE INDEX verify_transactions_time ON verify_transactions (created_at, id);
  CREATE INDEX verify_transactions_transaction ON verify_transactions (transaction_id);

  CREATE TABLE request_errors (
    id TEXT PRIMARY KEY,
    account_id TEXT,
    key_id TEXT,
    request_id TEXT NOT NULL,
    qrcode TEXT,
    kind TEXT NOT NULL,
    message TEXT NOT NULL,
    upstream TEXT,
    latency_ms INTEGER,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX request_errors_account_time ON request_errors (account_id, created_at, id);
  CREATE INDEX request_errors_time ON request_errors (created_at, id);

  CREATE TABLE credit_ledger (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    kind TEXT NOT NULL,
    delta INTEGER NOT NULL,
    reason TEXT NOT NULL,
    actor TEXT NOT NULL,
    idempotency_key TEXT UNIQUE,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX credit_ledger_account ON credit_ledger (account_id, created_at);
  `,
  `
  CREATE TABLE admin_tokens (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    role TEXT NOT NULL,
    prefix TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at INTEGER
  );

  CREATE TABLE admin_events (
    id TEXT PRIMARY KEY,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target_id TEXT,
    reason TEXT,
    details TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX admin_events_time ON admin_events (created_at, id);
  CREATE INDEX admin_events_target ON admin_events (target_id, created_at, id);
  `,
  `
  ALTER TABLE request_errors ADD COLUMN transaction_id TEXT;
  ALTER TABLE request_errors ADD COLUMN sending_bank TEXT;
  CREATE INDEX request_errors_transaction ON request_errors (transaction_id);
  CREATE INDEX verify_transactions_request ON verify_transactions (request_id);
  CREATE INDEX request_errors_request ON request_errors (request_id);
  `,
  `
  CREATE TABLE instance_leases (
    id TEXT PRIMARY KEY,
    started_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX instance_leases_expires ON instance_leases (expires_at);
  ALTER TABLE credit_holds ADD COLUMN instance_id TEXT;
  CREATE INDEX credit_holds_instance ON credit_holds (instance_id);
  `,
  `
  ALTER TABLE api_keys ADD COLUMN allowed_ips TEXT;
  `,
  // NULL: the caller sent the QR text (every row before images were read).
  `
  ALTER TABLE verify_transactions ADD COLUMN source TEXT;
  `,
  // Each lookup gets an index it can answer from without walking anything:
  // the duplicate check (account, slip, bank) and the admin filters by slip
  // and by request, each already in the keyset order (newest first), so no
  // page sorts and no lookup reads an account's whole history.
  `
  CREATE INDEX verify_transactions_duplicate ON verify_transactions (account_id, transaction_id, sending_bank, created_at, id);
  DROP INDEX verify_transactions_transaction;
  CREATE INDEX verify_transactions_transaction_time ON verify_transactions (transaction_id, created_at, id);
  DROP INDEX verify_transactions_request;
  CREATE INDEX verify_transactions_request_time ON verify_transactions (request_id, created_at, id);
  DROP INDEX request_errors_transaction;
  CREATE INDEX request_errors_transaction_time ON request_errors (transaction_id, created_at, id);
  DROP INDEX request_errors_request;
  CREATE INDEX request_errors_request_time ON request_errors (request_id, created_at, id);
  DROP INDEX credit_ledger_account;
  CREATE INDEX credit_ledger_account_time ON credit_ledger (account_id, created_at, id);
  CREATE INDEX api_keys_account_time ON api_keys (account_id, created_at, id);
  DROP INDEX api_keys_account;
  `,
  // Personal data retention (domain/retention.ts): when a record's personal
  // fields were removed. The partial index holds only records not yet
  // redacted, so each pass finds the old ones without reading the years of
  // records already done.
  `
  ALTER TABLE verify_transactions ADD COLUMN redacted_at INTEGER;
  CREATE INDEX verify_transactions_unredacted ON verify_transactions (created_at) WHERE redacted_at IS NULL;
  `,
  // A retention pass reads the unredacted records in (created_at, id) order
  // from its cursor (domain/retention.ts). Given only created_at, SQLite
  // prefers the full time index for that order and walks the years of
  // records already redacted at the start of every pass.
  `
  DROP INDEX verify_transactions_unredacted;
  CREATE INDEX verify_transactions_unredacted ON verify_transactions (created_at, id) WHERE redacted_at IS NULL;
  `,
  // Registered receiving accounts and each account's receiver policy
  // (domain/receivers.ts). The verify path reads them per account through a
  // cache, by this index.
  `
  ALTER TABLE accounts ADD COLUMN receiver_policy TEXT NOT NULL DEFAULT 'off';
  CREATE TABLE receivers (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    kind TEXT NOT NULL,
    bank_code TEXT,
    number TEXT NOT NULL,
    proxy_type TEXT,
    name_th TEXT,
    name_en TEXT,
    label TEXT,
    active INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX receivers_account ON receivers (account_id, created_at, id);
  `,
  // Signed webhooks (domain/webhooks): endpoints per account, and the
  // deliveries the settle of a verification writes in its own transaction
  // (the outbox). The partial index holds only pending deliveries, so the
  // worker finds what is due without reading the delivered ones.
  `
  CREATE TABLE webhook_endpoints (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    secret TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    removed_at INTEGER
  );
  CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, created_at, id);
  CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    event_id TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    state TEXT NOT NULL,
    next_attempt_at INTEGER NOT NULL,
    attempts TEXT NOT NULL DEFAULT '[]',
    claim TEXT,
    lease_until INTEGER,
    delivered_at INTEGER,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
  CREATE INDEX webhook_deliveries_account_time ON webhook_deliveries (account_id, created_at, id);
  CREATE INDEX webhook_deliveries_endpoint_time ON webhook_deliveries (endpoint_id, created_at, id);
  `,
  // LINE Official Account channels connected to merchant accounts
  // (domain/line), the webhook event ids already taken (a redelivery is not
  // processed twice, across restarts), and the LINE user who sent each slip
  // (personal data: retention and erasure remove it).
  `
  CREATE TABLE line_channels (
    channel_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    secret TEXT NOT NULL,
    access_token TEXT NOT NULL,
    lang TEXT NOT NULL,
    checks INTEGER NOT NULL,
    match_payment_requests INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX line_channels_account ON line_channels (account_id, created_at);
  CREATE TABLE line_events (
    channel_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (channel_id, event_id)
  );
  CREATE INDEX line_events_time ON line_events (created_at);
  ALTER TABLE verify_transactions ADD COLUMN line_user_id TEXT;
  ALTER TABLE request_errors ADD COLUMN line_user_id TEXT;
  `,
  // Payment requests (domain/payments): the unique indexes are the rules
  // every instance meets in one place: one request per (account, reference),
  // a slip (transaction id at its sending bank) pays one request, and under
  // the account's unique-amount setting one pending request per (receiver,
  // amount). The due index holds only pending requests, for expiry.
  `
  ALTER TABLE accounts ADD COLUMN unique_payment_amounts INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE payment_requests (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    receiver_id TEXT NOT NULL,
    reference TEXT NOT NULL,
    amount INTEGER NOT NULL,
    requested_amount INTEGER NOT NULL,
    unique_amount INTEGER NOT NULL,
    promptpay TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    paid_at INTEGER,
    paid_verification_id TEXT,
    paid_transaction_id TEXT,
    paid_sending_bank TEXT,
    paid_amount INTEGER,
    paid_transferred_at INTEGER,
    closed_at INTEGER
  );
  CREATE UNIQUE INDEX payment_requests_reference ON payment_requests (account_id, reference);
  CREATE UNIQUE INDEX payment_requests_paying_slip ON payment_requests (paid_transaction_id, paid_sending_bank) WHERE paid_transaction_id IS NOT NULL;
  CREATE UNIQUE INDEX payment_requests_pending_amount ON payment_requests (receiver_id, amount) WHERE status = 'pending' AND unique_amount = 1;
  CREATE INDEX payment_requests_due ON payment_requests (expires_at) WHERE status = 'pending';
  CREATE INDEX payment_requests_account_time ON payment_requests (account_id, created_at, id);
  `,
  // Continued in payment-rules-migrations.ts (the versions of payment requests' targets, verdicts,
  // finished deliveries and checkout pages), so each file stays readable.
  ...SQLITE_PAYMENT_RULES_MIGRATIONS,
  // Then re-checks of slips the bank did not know yet (recheck-migrations.ts).
  ...SQLITE_RECHECK_MIGRATIONS,
  // Then the slip's identity, its reference in upper case, for the records already stored (sql/slip-references.ts).
  SLIP_REFERENCES_MIGRATION,
];
