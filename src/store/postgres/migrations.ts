import { PG_PAYMENT_RULES_MIGRATIONS } from './payment-rules-migrations.js';
import { PG_RECHECK_MIGRATIONS } from './recheck-migrations.js';
import { SLIP_REFERENCES_MIGRATION } from '../sql/slip-references.js';

// Versioned schema for the PostgreSQL store, the same shape as the SQLite one.
// Append new versions (at the end of payment-rules-migrations.ts); never edit
// one that has shipped. Each version runs in the migration transaction, so a
// failed version leaves nothing behind.
export const PG_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE accounts (
    id text PRIMARY KEY,
    name text NOT NULL,
    credits integer NOT NULL DEFAULT 0 CHECK (credits >= 0),
    usage integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    deleted_at timestamptz
  );
  CREATE INDEX accounts_created ON accounts (created_at, id);

  CREATE TABLE api_keys (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    prefix text NOT NULL,
    hash text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL,
    last_used_at timestamptz,
    revoked_at timestamptz
  );
  CREATE INDEX api_keys_account ON api_keys (account_id);

  CREATE TABLE credit_holds (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    key_id text NOT NULL,
    created_at timestamptz NOT NULL
  );
  CREATE INDEX credit_holds_account ON credit_holds (account_id);
  CREATE INDEX credit_holds_created ON credit_holds (created_at);

  -- Slip amounts are baht with satang: numeric keeps sums exact.
  CREATE TABLE verify_transactions (
    id text PRIMARY KEY,
    account_id text NOT NULL,
    key_id text NOT NULL,
    request_id text NOT NULL,
    qrcode text NOT NULL,
    transaction_id text NOT NULL,
    amount numeric(14, 2) NOT NULL,
    sending_bank text NOT NULL,
    receiving_bank text NOT NULL,
    upstream text NOT NULL,
    latency_ms integer NOT NULL,
    response jsonb NOT NULL,
    created_at timestamptz NOT NULL
  );
  CREATE INDEX verify_transactions_account_time ON verify_transactions (account_id, created_at, id);
  CREATE INDEX verify_transactions_time ON verify_transactions (created_at, id);
  CREATE INDEX verify_transactions_transaction ON verify_transactions (transaction_id);

  CREATE TABLE request_errors (
    id text PRIMARY KEY,
    account_id text,
    key_id text,
    request_id text NOT NULL,
    qrcode text,
    kind text NOT NULL,
    message text NOT NULL,
    upstream text,
    latency_ms integer,
    created_at timestamptz NOT NULL
  );
  CREATE INDEX request_errors_account_time ON request_errors (account_id, created_at, id);
  CREATE INDEX request_errors_time ON request_errors (created_at, id);

  CREATE TABLE credit_ledger (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    kind text NOT NULL,
    delta integer NOT NULL,
    reason text NOT NULL,
    actor text NOT NULL,
    idempotency_key text UNIQUE,
    created_at timestamptz NOT NULL
  );
  CREATE INDEX credit_ledger_account ON credit_ledger (account_id, created_at);
  `,
  `
  CREATE TABLE admin_tokens (
    id text PRIMARY KEY,
    name text NOT NULL,
    role text NOT NULL,
    prefix text NOT NULL,
    hash text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL,
    last_used_at timestamptz,
    revoked_at timestamptz
  );

  CREATE TABLE admin_events (
    id text PRIMARY KEY,
    actor text NOT NULL,
    action text NOT NULL,
    target_id text,
    reason text,
    details jsonb NOT NULL,
    created_at timestamptz NOT NULL
  );
  CREATE INDEX admin_events_time ON admin_events (created_at, id);
  CREATE INDEX admin_events_target ON admin_events (target_id, created_at, id);
  `,
  `
  ALTER TABLE request_errors ADD COLUMN transaction_id text, ADD COLUMN sending_bank text;
  CREATE INDEX request_errors_transaction ON request_errors (transaction_id);
  CREATE INDEX verify_transactions_request ON verify_transactions (request_id);
  CREATE INDEX request_errors_request ON request_errors (request_id);
  `,
  `
  -- expires_at is written and compared with the database clock only.
  CREATE TABLE instance_leases (
    id text PRIMARY KEY,
    started_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
  );
  CREATE INDEX instance_leases_expires ON instance_leases (expires_at);
  ALTER TABLE credit_holds ADD COLUMN instance_id text;
  CREATE INDEX credit_holds_instance ON credit_holds (instance_id);
  `,
  `
  ALTER TABLE api_keys ADD COLUMN allowed_ips text;
  `,
  // NULL: the caller sent the QR text (every row before images were read).
  `
  ALTER TABLE verify_transactions ADD COLUMN source text;
  `,
  // Each lookup gets an index it can answer from without walking anything:
  // the admin filters by slip and by request, each already in the keyset
  // order (newest first), so no page sorts and no lookup reads an account's
  // whole history. The duplicate check (account, slip, bank) is served by the
  // slip's index: its rows are that slip's verifications only, and with
  // statistics PostgreSQL prefers it to a wider (account, slip, bank) index,
  // which would only cost every insert (SQLite has one: its planner has no
  // statistics to tell its indexes apart).
  `
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
  // records already done. Building it locks writes to verify_transactions
  // for as long as it takes (see docs/storage.md).
  `
  ALTER TABLE verify_transactions ADD COLUMN redacted_at timestamptz;
  CREATE INDEX verify_transactions_unredacted ON verify_transactions (created_at) WHERE redacted_at IS NULL;
  `,
  // Registered receiving accounts and each account's receiver policy
  // (domain/receivers.ts). The verify path reads them per account through a
  // cache, by this index. Adding a column with a constant default rewrites
  // nothing (PostgreSQL 11+).
  `
  ALTER TABLE accounts ADD COLUMN receiver_policy text NOT NULL DEFAULT 'off';
  CREATE TABLE receivers (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    kind text NOT NULL,
    bank_code text,
    number text NOT NULL,
    proxy_type text,
    name_th text,
    name_en text,
    label text,
    active boolean NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL
  );
  CREATE INDEX receivers_account ON receivers (account_id, created_at, id);
  `,
  // Signed webhooks (domain/webhooks): endpoints per account, and the
  // deliveries the settle of a verification writes in its own statement
  // (the outbox). The partial index holds only pending deliveries, so the
  // worker finds what is due without reading the delivered ones.
  `
  CREATE TABLE webhook_endpoints (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    url text NOT NULL,
    events text NOT NULL,
    secret text NOT NULL,
    created_at timestamptz NOT NULL,
    removed_at timestamptz
  );
  CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, created_at, id);
  CREATE TABLE webhook_deliveries (
    id text PRIMARY KEY,
    event_id text NOT NULL,
    endpoint_id text NOT NULL,
    account_id text NOT NULL,
    type text NOT NULL,
    body text NOT NULL,
    state text NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    attempts jsonb NOT NULL DEFAULT '[]',
    claim text,
    lease_until timestamptz,
    delivered_at timestamptz,
    created_at timestamptz NOT NULL
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
    channel_id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    secret text NOT NULL,
    access_token text NOT NULL,
    lang text NOT NULL,
    checks boolean NOT NULL,
    match_payment_requests boolean NOT NULL,
    created_at timestamptz NOT NULL
  );
  CREATE INDEX line_channels_account ON line_channels (account_id, created_at);
  CREATE TABLE line_events (
    channel_id text NOT NULL,
    event_id text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (channel_id, event_id)
  );
  CREATE INDEX line_events_time ON line_events (created_at);
  ALTER TABLE verify_transactions ADD COLUMN line_user_id text;
  ALTER TABLE request_errors ADD COLUMN line_user_id text;
  `,
  // Payment requests (domain/payments): the unique indexes are the rules
  // every instance meets in one place: one request per (account, reference),
  // a slip (transaction id at its sending bank) pays one request, and under
  // the account's unique-amount setting one pending request per (receiver,
  // amount). The due index holds only pending requests, for expiry.
  `
  ALTER TABLE accounts ADD COLUMN unique_payment_amounts boolean NOT NULL DEFAULT false;
  CREATE TABLE payment_requests (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    receiver_id text NOT NULL,
    reference text NOT NULL,
    amount bigint NOT NULL,
    requested_amount bigint NOT NULL,
    unique_amount boolean NOT NULL,
    promptpay text NOT NULL,
    status text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    paid_at timestamptz,
    paid_verification_id text,
    paid_transaction_id text,
    paid_sending_bank text,
    paid_amount bigint,
    paid_transferred_at timestamptz,
    closed_at timestamptz
  );
  CREATE UNIQUE INDEX payment_requests_reference ON payment_requests (account_id, reference);
  CREATE UNIQUE INDEX payment_requests_paying_slip ON payment_requests (paid_transaction_id, paid_sending_bank) WHERE paid_transaction_id IS NOT NULL;
  CREATE UNIQUE INDEX payment_requests_pending_amount ON payment_requests (receiver_id, amount) WHERE status = 'pending' AND unique_amount;
  CREATE INDEX payment_requests_due ON payment_requests (expires_at) WHERE status = 'pending';
  CREATE INDEX payment_requests_account_time ON payment_requests (account_id, created_at, id);
  `,
  // Continued in payment-rules-migrations.ts (the versions of payment requests' targets, verdicts,
  // finished deliveries and checkout pages), so each file stays readable.
  ...PG_PAYMENT_RULES_MIGRATIONS,
  // Then re-checks of slips the bank did not know yet (recheck-migrations.ts).
  ...PG_RECHECK_MIGRATIONS,
  // Then the slip's identity, its reference in upper case, for the records already stored (sql/slip-references.ts).
  SLIP_REFERENCES_MIGRATION,
];
