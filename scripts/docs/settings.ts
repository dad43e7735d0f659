// What each setting means, for docs/configuration.md. The names, defaults and
// accepted values come from the schema itself (src/config.ts); only the
// meaning is written here. Typed by the schema's keys, so a setting added to
// src/config.ts without a line here does not compile, and
// test/docs/generated.test.ts finds any environment variable src/ reads that
// neither lists.
import type { configSchema } from '../../src/config.js';

export type Topic = 'Listeners' | 'Storage' | 'Bank network' | 'Limits' | 'Pictures' | 'Processes' | 'Logs and metrics' | 'Retention' | 'Webhooks' | 'LINE' | 'Dashboard' | 'CLI';
export const TOPICS: readonly Topic[] = ['Listeners', 'Storage', 'Bank network', 'Limits', 'Pictures', 'Processes', 'Logs and metrics', 'Retention', 'Webhooks', 'LINE', 'Dashboard', 'CLI'];

export interface SettingDoc {
  topic: Topic;
  meaning: string;
  /** Where the schema's default is computed at startup, what it is. */
  default?: string;
  /** Where the schema's rule (a pattern, a union) reads badly as it is. */
  accepts?: string;
}

type SchemaSetting = keyof typeof configSchema.shape;

export const SCHEMA_SETTINGS: Record<SchemaSetting, SettingDoc> = {
  PORT: { topic: 'Listeners', meaning: 'public listener port (`POST /api/v1/verify`); `0` picks a free one' },
  HOST: { topic: 'Listeners', meaning: 'public listener address (`0.0.0.0` to serve other machines)' },
  ADMIN_PORT: { topic: 'Listeners', meaning: 'admin listener port: `/healthz`, `/readyz`, `/graphql`, `/metrics`, the dashboard' },
  ADMIN_HOST: { topic: 'Listeners', meaning: 'admin listener address; keep it off the public network' },
  PUBLIC_URL: {
    topic: 'Listeners',
    meaning: "the public listener's outside address, through the proxy (`https://pay.example.co.th`); `slipgate doctor --go-live` checks that it is https and reaches this instance (see [deploy.md](deploy.md#go-live-check)), and payment requests' `checkoutUrl` is built on it (see [payments.md](payments.md#checkout-page)); unset, the public listener's own address while `HOST` is loopback (the quickstart: links open on the same machine), else `checkoutUrl` is null",
  },
  DATABASE_URL: {
    topic: 'Storage',
    meaning: 'the store, see [storage.md](storage.md); `?pool_max=N` sets a PostgreSQL pool size (strip it before giving the URL to `pg_dump`/`psql`, see [operations.md](operations.md#postgresql-pg_dump-or-point-in-time-recovery))',
    accepts: '`sqlite:<path>`, `postgres://…`, `postgresql://…`, `mongodb://…`, `mongodb+srv://…`',
  },
  MONGODB_ALLOW_NON_ATOMIC: {
    topic: 'Storage',
    meaning: '`serve` may run on a MongoDB-wire server that does not make a guarded update atomic (FerretDB, which names itself in `buildInfo`): for a test only, since concurrent verifications can then spend credits an account does not have; otherwise `serve` refuses it with a one-line reason and `doctor` reports it ([storage](storage.md#a-mongodb-wire-server-that-is-not-mongodb))',
    accepts: '`yes` or `no`',
  },
  DATABASE_CREATE: {
    topic: 'Storage',
    meaning: '`serve` may create a new SQLite database at `DATABASE_URL` (as `--create` does); otherwise a missing file or folder is refused, naming it, except the quickstart\'s default `./data/slipgate.db`',
    accepts: '`yes` or `no`',
  },
  UPSTREAM_TIMEOUT_MS: { topic: 'Bank network', meaning: 'whole budget of one network verification, failover and retries included' },
  HOLD_STALE_MS: { topic: 'Storage', meaning: 'age after which any credit hold counts as left by a dead process (backstop to leases)', default: '`UPSTREAM_TIMEOUT_MS` + 60000' },
  LEASE_HEARTBEAT_MS: { topic: 'Processes', meaning: 'how often a serving process renews its lease; it counts as dead after 3 missed beats' },
  SANDBOX_LATENCY_MS: { topic: 'Bank network', meaning: 'simulated latency of the built-in sandbox network' },
  UPSTREAM_EXHAUSTED_RETRY_MINUTES: {
    topic: 'Bank network',
    meaning: 'how long a slip-API domain that said it cannot serve (quota used up, key refused, IP not allowed) is skipped when no quota reading says it is back; then one verification finds out, see [banks.md](banks.md#priority-and-failover)',
  },
  UPSTREAM_QUOTA_POLL_MINUTES: { topic: 'Bank network', meaning: "how often each slip-API domain's quota call is made (at start too; never a verification), see [banks.md](banks.md#quota-readings)" },
  UPSTREAM_QUOTA_LOW: { topic: 'Bank network', meaning: "a slip-API domain's quota below this is a WARN line and a LINE staff note, once per crossing, see [banks.md](banks.md#quota-readings); `0` is off" },
  API_KEY_CACHE_TTL_MS: { topic: 'Limits', meaning: 'key lookups are reused this long; revocations and allowed-IP changes made elsewhere apply within it' },
  MAX_INFLIGHT_PER_ACCOUNT: { topic: 'Limits', meaning: 'verifications one account may have in flight per process; 429 beyond' },
  LOG_LEVEL: { topic: 'Logs and metrics', meaning: 'pino level; API keys and tokens are redacted in every format. One-shot CLI commands log only warnings (readable lines) while it is unset' },
  LOG_FORMAT: { topic: 'Logs and metrics', meaning: 'unset: coloured readable lines when stdout is a terminal, JSON lines otherwise (see [operations.md](monitoring.md#logs))' },
  METRICS_TOKEN: {
    topic: 'Logs and metrics',
    meaning: 'when set, `GET /metrics` needs `Authorization: Bearer <token>`; unset, it is open to whoever reaches the admin listener (see [operations.md](monitoring.md#metrics))',
    accepts: '16–512 printable ASCII characters, no spaces',
  },
  MAX_BODY_BYTES: { topic: 'Limits', meaning: 'largest accepted request body (`qrcode` bodies); 413 beyond' },
  MAX_IMAGE_BYTES: { topic: 'Pictures', meaning: 'largest accepted picture: an `image` body (base64 JSON), or the picture sent as bytes (raw body or form); 413 beyond' },
  IMAGE_WORKERS: { topic: 'Pictures', meaning: 'threads reading slip pictures', default: 'one per CPU core' },
  IMAGE_QUEUE_MAX: { topic: 'Pictures', meaning: 'pictures waiting for a thread; beyond it 429 with `Retry-After`' },
  IMAGE_BYTES_IN_FLIGHT: { topic: 'Pictures', meaning: 'bytes of picture bodies (the verify route\'s and the checkout page\'s uploads) one process holds at once, one client address at most a quarter of it; a picture beyond it waits unread, and after 10 s gets 429 with `Retry-After` ([memory](performance.md#memory))' },
  IMAGE_MAX_PER_ACCOUNT: { topic: 'Pictures', meaning: 'pictures one account may have waiting for or on a thread (per process); beyond it 429 with `Retry-After`, before they queue' },
  IMAGE_DECODE_TIMEOUT_MS: { topic: 'Pictures', meaning: 'time one picture may take on its thread; the thread is then replaced and the answer is a free HTTP 200 error' },
  IMAGE_MAX_PIXELS: { topic: 'Pictures', meaning: 'width × height limit, checked from the file header before decompressing' },
  RATE_LIMIT_PER_KEY_PER_MIN: { topic: 'Limits', meaning: 'requests a minute per API key (per process), 429 + `Retry-After` beyond; `0` is off' },
  RATE_LIMIT_PER_IP_PER_MIN: { topic: 'Limits', meaning: 'requests a minute per client IP (per process), any route, checked first; `0` is off' },
  AUTH_FAILURES_PER_IP_PER_MIN: {
    topic: 'Limits',
    meaning: 'refused authentications (1020/1021/1024) a minute per client address (IPv6 by /56) recorded one by one, on every route that takes a key; beyond, further refusals get 429 until the minute ends and one record per address and minute, while keys that resolve are served (see [SECURITY.md](../SECURITY.md)); `0` is off',
  },
  AUTH_BRAKE_DELAY_MS: {
    topic: 'Limits',
    meaning: 'how long a braked address waits for each 429 (at most 1,024 held at once per process, beyond answered at once): a flood that waits for its answers is slowed to its connections per delay (see [SECURITY.md](../SECURITY.md)); `0` answers at once',
  },
  TRUST_PROXY_HOPS: { topic: 'Limits', meaning: 'proxies in front whose `X-Forwarded-For` names the client IP (rate limits, keys locked to IP ranges); `1` behind one nginx' },
  HEADERS_TIMEOUT_MS: { topic: 'Limits', meaning: 'time a client has to send all headers; slow senders (slowloris) get a JSON 408' },
  REQUEST_TIMEOUT_MS: { topic: 'Limits', meaning: 'time a client has to send the whole request; JSON 408 beyond', default: '`UPSTREAM_TIMEOUT_MS` + 20000' },
  DASHBOARD_DIR: { topic: 'Dashboard', meaning: 'folder of another dashboard build (index.html, assets/)', default: '`dist/dashboard` of the package' },
  RETENTION_DAYS: {
    topic: 'Retention',
    meaning: 'days a verification keeps its personal data and a failed request is kept at all; see [operations.md](operations.md#personal-data-retention)',
    accepts: 'whole days `0`–`36500`, or `off` (`0` and `off` keep everything)',
  },
  RETENTION_INTERVAL_MINUTES: { topic: 'Retention', meaning: 'how often a server runs the retention pass (also once at startup; only the longest-running instance does the work)' },
  CHECKOUT_MAX_CHECKS: {
    topic: 'Limits',
    meaning: 'slip pictures one payment request\'s checkout page may have checked (counted in the database, shared by every instance); each can cost the shop one credit, so this bounds what a visitor can spend (see [payments.md](payments.md#checkout-page))',
  },
  CHECKOUT_UPLOADS_PER_IP_PER_MIN: { topic: 'Limits', meaning: 'slip uploads one client address may make to checkout pages per minute (per process); past it the page answers 429' },
  RECHECK_MINUTES: {
    topic: 'Limits',
    meaning: 'how long a slip the bank does not know yet is asked again (sent for a payment request, or with `"recheck": true`) before it is unconfirmed; see [payments.md](payments.md#re-checks)',
  },
  RECHECK_MAX_PER_ACCOUNT: { topic: 'Limits', meaning: 'slips one account may have being re-checked at once; beyond, 429 with code 1027' },
  SECRETS_KEY: {
    topic: 'Webhooks',
    meaning: '32 bytes that seal webhook signing secrets and LINE channel secrets in the database (see [webhooks.md](webhooks.md#signing-secrets-at-rest-secrets_key)); unset with a SQLite database, `serve` makes one once in `secrets.key` beside it (mode 0600, named in the startup log; `doctor --go-live` asks for a credential instead); unset otherwise, webhook secrets are stored as they are and LINE channels cannot be connected',
    accepts: '64 hex characters or base64 (`openssl rand -hex 32`)',
  },
  WEBHOOK_TIMEOUT_MS: { topic: 'Webhooks', meaning: 'one delivery attempt\'s whole budget' },
  WEBHOOK_RETRY_BASE_MS: { topic: 'Webhooks', meaning: 'delay after the first failed attempt; doubles after each, with jitter' },
  WEBHOOK_RETRY_MAX_DELAY_MS: { topic: 'Webhooks', meaning: 'the longest pause between two attempts, `Retry-After` included' },
  WEBHOOK_RETRY_WINDOW_MS: { topic: 'Webhooks', meaning: 'how long after its event a delivery is retried before it is marked failed' },
  WEBHOOK_POLL_MS: { topic: 'Webhooks', meaning: 'how often an idle delivery worker looks for due deliveries (a verification on the same process wakes it, within 20 ms: see webhooks.md)' },
  WEBHOOK_CONCURRENCY: { topic: 'Webhooks', meaning: 'delivery attempts one process keeps under way at once: at most this many per round trip to the endpoints (128 at 100 ms is 1,280 a second)' },
  WEBHOOK_LEASE_MS: { topic: 'Webhooks', meaning: 'how long a claim holds a delivery; must be longer than `WEBHOOK_TIMEOUT_MS`' },
  WEBHOOK_ALLOW_PRIVATE: {
    topic: 'Webhooks',
    meaning:
      'webhook URLs may lead to loopback and private network addresses (127.0.0.0/8, 10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7, ::1, 0.0.0.0): a receiver on the same machine or network, tests, the quickstart. Off, they are refused at registration and before every connection; link-local and cloud metadata addresses are refused either way (see [webhooks.md](webhooks.md#urls-slipgate-accepts))',
    accepts: '`true` or `false` (also `yes`/`no`, `1`/`0`)',
  },
  WEBHOOK_DELIVERY_RETENTION_DAYS: {
    topic: 'Retention',
    meaning: 'days a finished webhook delivery (delivered or failed) is kept, with its body and attempts, before the retention pass deletes it; pending and retrying ones are never deleted (`0`: kept forever)',
  },
  LINE_API_BASE_URL: { topic: 'LINE', meaning: "LINE's Messaging API (replies, pushes, the loading animation); `slipgate simulate-line`'s URL in tests and demos (see [line.md](line.md))" },
  LINE_DATA_API_BASE_URL: { topic: 'LINE', meaning: "LINE's data API, where slip pictures are downloaded from; the simulator's URL in tests and demos" },
  LINE_API_TIMEOUT_MS: { topic: 'LINE', meaning: 'one call to LINE (a picture download, a reply, a push) at most' },
  LINE_EVENTS_PER_USER_PER_MIN: { topic: 'LINE', meaning: 'slips and pictures one LINE user may send one channel per minute; beyond, one polite answer and nothing checked (`0`: no limit)' },
  LINE_SUMMARY_AT: { topic: 'LINE', accepts: '`HH:MM` (`00:00`–`23:59`), or `off`', meaning: "Bangkok time (`HH:MM`) the day's summary is pushed to each channel's staff targets (docs/line.md#daily-summary); `off`: none" },
  LINE_STAFF_BATCH_MS: { topic: 'LINE', meaning: "how long a channel's staff notes are collected before one push to each staff target (docs/line.md#staff-notifications); a crash loses at most this window's notes" },
  WORKERS: { topic: 'Processes', meaning: '`serve` processes sharing the listeners (node:cluster); `0` or `auto` is one per CPU core; `serve --workers N` overrides it' },
};

/** Environment variables read outside the schema, each by the part that needs it. */
export const OTHER_SETTINGS: Record<string, SettingDoc & { default: string; accepts: string }> = {
  UPSTREAMS: { topic: 'Bank network', default: 'unset (the sandbox)', accepts: 'a JSON array of domains', meaning: 'bank domain configurations, see [banks.md](banks.md)' },
  UPSTREAMS_FILE: { topic: 'Bank network', default: 'unset', accepts: 'a path', meaning: 'a file holding that array instead (not both); `kill -HUP` reloads it' },
  SECRETS_KEY_FILE: { topic: 'Storage', default: 'unset', accepts: 'a path', meaning: 'a file holding `SECRETS_KEY` (not both); every secret setting has one, see [deploy.md](deploy.md#secrets-from-files)' },
  METRICS_TOKEN_FILE: { topic: 'Logs and metrics', default: 'unset', accepts: 'a path', meaning: 'a file holding `METRICS_TOKEN` (not both)' },
  DATABASE_URL_FILE: { topic: 'Storage', default: 'unset', accepts: 'a path', meaning: 'a file holding `DATABASE_URL`, e.g. with its password (not both)' },
  CREDENTIALS_DIRECTORY: {
    topic: 'Processes',
    default: 'set by systemd',
    accepts: 'a folder',
    meaning: "read, never set by hand: systemd's credentials (`LoadCredential=`); one named like a secret setting (`SECRETS_KEY`, `METRICS_TOKEN`, `DATABASE_URL`) is read when neither it nor its `_FILE` is set",
  },
  UV_THREADPOOL_SIZE: {
    topic: 'Processes',
    default: '4 + image threads',
    accepts: 'libuv: 1–1024',
    meaning: "libuv's thread pool (WAL fsync, DNS, sharp); set by the `slipgate` command at start unless you set it (see [pictures.md](pictures.md#threads))",
  },
  NO_COLOR: { topic: 'Logs and metrics', default: 'unset', accepts: 'any value', meaning: 'no colour in the readable log format' },
  FORCE_COLOR: { topic: 'Logs and metrics', default: 'unset', accepts: '`1` (`0` is unset)', meaning: 'colour in the readable log format even off a terminal' },
  SLIPGATE_URL: { topic: 'CLI', default: '`http://127.0.0.1:3000`', accepts: 'a URL', meaning: '`slipgate verify`: the public URL it calls (`--url` overrides)' },
  INVOCATION_ID: { topic: 'CLI', default: 'set by systemd', accepts: 'any value', meaning: 'read, never set by hand: under systemd the startup line suggests `sudo slipgate …` (the host wrapper) for the CLI' },
  SLIPGATE_ACTOR: { topic: 'CLI', default: 'unset', accepts: '1–100 printable characters', meaning: 'the staff member the CLI records as making a change (`--as` overrides; then `SUDO_USER`, then the system user); see [operations.md](operations.md#who-made-a-change)' },
  SUDO_USER: { topic: 'CLI', default: 'set by sudo', accepts: 'a user name', meaning: 'who ran `sudo slipgate …`: recorded as the actor when neither `--as` nor `SLIPGATE_ACTOR` is given' },
  SLIPGATE_REVISION: { topic: 'CLI', default: '`git describe` at build time', accepts: 'text', meaning: 'build time only (`npm run build`, the image\'s build argument): the revision `slipgate --version` names' },
  SLIPGATE_API_KEY: { topic: 'CLI', default: 'unset', accepts: 'an API key', meaning: '`slipgate verify`: the key, kept out of shell history (`--api-key` overrides)' },
};
