// Configuration from the environment, validated once at startup. Every bad
// value is reported by name with what was expected.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { readSecretsKeyFile, secretsKeyFileOf } from './files/secrets-key-file.js';

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
const ms = (fallback: number) => z.coerce.number().int().min(1).max(3_600_000).default(fallback);

const RETENTION_DAYS_RULE = 'must be a whole number of days from 0 to 36500, or "off" (0 and "off" keep personal data forever)';

/** The quickstart's database: the one path `serve` creates without being asked. */
export const DEFAULT_DATABASE_URL = 'sqlite:./data/slipgate.db';

const DATABASE_URL = /^(sqlite:.+|postgres(ql)?:\/\/.+|mongodb(\+srv)?:\/\/.+)$/;

export const configSchema = z.object({
  PORT: port(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  ADMIN_PORT: port(3001),
  ADMIN_HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(DATABASE_URL, 'must start with sqlite:, postgres://, postgresql://, mongodb:// or mongodb+srv://')
    .default(DEFAULT_DATABASE_URL),
  /**
   * Lets `serve` create a SQLite database that does not exist yet (as
   * `serve --create` does). Without it only the quickstart's default path is
   * created; any other missing file is a wrong path, not a new install.
   */
  DATABASE_CREATE: z
    .enum(['yes', 'no', 'true', 'false', '1', '0'], { error: 'must be yes or no' })
    .transform((v) => v === 'yes' || v === 'true' || v === '1')
    .default(false),
  /**
   * yes: serve on a MongoDB-wire server that does not make a guarded update
   * atomic (FerretDB), for a test; credits can then be overdrawn (store/non-atomic.ts).
   */
  MONGODB_ALLOW_NON_ATOMIC: z
    .enum(['yes', 'no', 'true', 'false', '1', '0'], { error: 'must be yes or no' })
    .transform((v) => v === 'yes' || v === 'true' || v === '1')
    .default(false),
  UPSTREAM_TIMEOUT_MS: ms(10_000),
  /** Holds older than this are from a dead process; defaults to timeout + 60 s. */
  HOLD_STALE_MS: z.coerce.number().int().min(1).optional(),
  /** How often a serving process renews its lease; it counts as dead after 3 missed beats. */
  LEASE_HEARTBEAT_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  /** Simulated latency of the built-in sandbox network (demos, benchmarks, tests). */
  SANDBOX_LATENCY_MS: z.coerce.number().int().min(0).max(600_000).default(0),
  /** How long a slip-API domain that cannot serve (quota used up, key refused) is skipped when no quota reading says it is back. */
  UPSTREAM_EXHAUSTED_RETRY_MINUTES: z.coerce.number().int().min(1).max(1440).default(30),
  /** How often each slip-API domain's quota is read (its quota call, never a verification). */
  UPSTREAM_QUOTA_POLL_MINUTES: z.coerce.number().int().min(1).max(1440).default(10),
  /** A domain's quota below this is a WARN line, once per crossing; 0 is off. */
  UPSTREAM_QUOTA_LOW: z.coerce.number().int().min(0).max(100_000_000).default(100),
  /** How long an API key lookup is reused; revocations elsewhere apply within it. */
  API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(300_000).default(5_000),
  /** Verifications one account may have in flight per process; more get 429. */
  MAX_INFLIGHT_PER_ACCOUNT: z.coerce.number().int().min(1).max(1_000_000).default(256),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** json (machines) or pretty (people); unset: pretty when stdout is a terminal. */
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  /** Bearer token GET /metrics requires; unset = open (the admin listener is loopback by default). */
  METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .max(512)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .optional(),
  /** Cap on one verify request body (docs/contract.md#limits). */
  MAX_BODY_BYTES: z.coerce.number().int().min(256).max(1_048_576).default(16_384),
  /** Cap on a verify request body carrying an image (base64 JSON); qrcode bodies keep MAX_BODY_BYTES. */
  MAX_IMAGE_BYTES: z.coerce.number().int().min(1024).max(67_108_864).default(4_194_304),
  /** Threads reading slip images; default one per CPU core. */
  IMAGE_WORKERS: z.coerce.number().int().min(1).max(256).optional(),
  /** Images waiting for a thread; beyond it image requests get 429 (nothing charged). */
  IMAGE_QUEUE_MAX: z.coerce.number().int().min(0).max(100_000).default(32),
  /** Bytes of picture bodies one process holds at once; a picture beyond waits unread (up to 10 s, then 429). Default 32 MiB. */
  IMAGE_BYTES_IN_FLIGHT: z.coerce.number().int().min(65_536).max(4_294_967_296).default(33_554_432),
  /** Pictures one account may have waiting for or on a decoder thread (per process); more get 429 before they queue. */
  IMAGE_MAX_PER_ACCOUNT: z.coerce.number().int().min(1).max(100_000).default(4),
  /** Time one image may take on its thread; a thread stuck past it is replaced. */
  IMAGE_DECODE_TIMEOUT_MS: ms(5_000),
  /** Width × height limit of an image, checked before decompressing (decompression bombs). */
  IMAGE_MAX_PIXELS: z.coerce.number().int().min(10_000).max(1_000_000_000).default(40_000_000),
  /** Public requests per minute one API key may make (per process); 0 = no limit. See SECURITY.md. */
  RATE_LIMIT_PER_KEY_PER_MIN: z.coerce.number().int().min(0).max(10_000_000).default(0),
  /** Public requests per minute one client IP may make (per process); 0 = no limit. */
  RATE_LIMIT_PER_IP_PER_MIN: z.coerce.number().int().min(0).max(10_000_000).default(0),
  /**
   * Refused authentications (1020, 1021, 1024) one client address may have
   * recorded one by one per minute (per process), on every keyed route; past
   * it the address's further refusals get 429 for the rest of the minute,
   * counted into one record, while keys that resolve are served. 0 = no
   * brake (every refusal is a record). See SECURITY.md.
   */
  AUTH_FAILURES_PER_IP_PER_MIN: z.coerce.number().int().min(0).max(1_000_000).default(20),
  /**
   * How long a braked address waits for its 429 (src/http/tarpit.ts): a
   * flood that waits for each answer is slowed to its connections per
   * delay. 0 = answered at once.
   */
  AUTH_BRAKE_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
  /** Reverse proxies in front of the public port whose X-Forwarded-For is trusted (client IP). */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(16).default(0),
  /** Slow clients: time to send all headers, and the whole request (default timeout + 20 s). */
  HEADERS_TIMEOUT_MS: ms(15_000),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1).max(3_600_000).optional(),
  /** `serve` processes sharing the listeners (node:cluster); 0 or "auto" = one per CPU core. */
  /** Folder with the built dashboard (index.html, assets/); default <package>/dist/dashboard. */
  DASHBOARD_DIR: z.string().min(1).optional(),
  /**
   * Days a verification keeps its personal data (names, accounts, proxies,
   * the bank's raw answer) and a failed request is kept at all; 0 or "off"
   * keeps everything. 365: a year covers disputes, chargebacks and fraud
   * reviews of a transfer and the Thai accounting year it is booked in,
   * while PDPA asks for no longer than needed; the books keep amount,
   * reference, banks and time for good (domain/redaction.ts).
   */
  RETENTION_DAYS: z
    .union([z.literal('off').transform(() => 0), z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().max(36_500, RETENTION_DAYS_RULE))], {
      error: RETENTION_DAYS_RULE,
    })
    .default(365),
  /** How often a server runs the retention pass (only the instance with the oldest live lease does). */
  RETENTION_INTERVAL_MINUTES: z.coerce
    .number({ error: 'must be a whole number of minutes from 1 to 10080' })
    .int({ error: 'must be a whole number of minutes from 1 to 10080' })
    .min(1, 'must be a whole number of minutes from 1 to 10080')
    .max(10_080, 'must be a whole number of minutes from 1 to 10080')
    .default(60),
  /**
   * 32 bytes (64 hex characters, or base64) that seal webhook signing
   * secrets in the database (domain/secret-box.ts). Unset with a SQLite
   * database: the key `serve` made once in `secrets.key` beside it (0600);
   * unset otherwise, they are stored as they are. See docs/webhooks.md.
   */
  SECRETS_KEY: z
    .string()
    .transform((v, ctx) => {
      const key = /^[0-9a-f]{64}$/i.test(v) ? Buffer.from(v, 'hex') : Buffer.from(v, 'base64');
      if (key.length !== 32) ctx.addIssue({ code: 'custom', message: 'must be 32 bytes, as 64 hex characters or base64 (openssl rand -hex 32)' });
      return key;
    })
    .optional(),
  /**
   * The public listener's outside address, as customers and LINE reach it
   * through the proxy (https://pay.example.co.th), without query or
   * fragment: checked by `doctor --go-live`, and the base of the links
   * slipgate hands out (payment requests' checkoutUrl). Unset: the public
   * listener's own address while HOST is loopback, else no checkout links.
   */
  PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://pay.example.co.th' })
    .refine((v) => !/[?#]/.test(v), 'must be a plain address, without ?query or #fragment')
    .transform((v) => v.replace(/\/+$/, ''))
    .optional(),
  /** Slip pictures one payment request's checkout page may have checked, counted in the database (each can cost the shop a credit). */
  CHECKOUT_MAX_CHECKS: z.coerce.number().int().min(1).max(100).default(5),
  /** Slip uploads one client address may make to checkout pages per minute (per process). */
  CHECKOUT_UPLOADS_PER_IP_PER_MIN: z.coerce.number().int().min(1).max(100_000).default(10),
  /**
   * How long a slip the bank does not know yet (sent for a payment request,
   * or with `"recheck": true`) is asked again before it is unconfirmed.
   */
  RECHECK_MINUTES: z.coerce.number().int().min(1).max(1440).default(10),
  /** Slips one account may have being re-checked at once; beyond, a verify is refused with 429 and code 1027. */
  RECHECK_MAX_PER_ACCOUNT: z.coerce.number().int().min(1).max(1_000_000).default(100),
  /** One webhook attempt's whole budget. */
  WEBHOOK_TIMEOUT_MS: ms(10_000),
  /** Delay after the first failed attempt; doubles after each, with jitter. */
  WEBHOOK_RETRY_BASE_MS: ms(30_000),
  /** The longest pause between two attempts (backoff and Retry-After alike). */
  WEBHOOK_RETRY_MAX_DELAY_MS: z.coerce.number().int().min(1).max(86_400_000).default(21_600_000),
  /** How long after its event a delivery is retried before it is failed. */
  WEBHOOK_RETRY_WINDOW_MS: z.coerce.number().int().min(1).max(30 * 86_400_000).default(3 * 86_400_000),
  /** How often the delivery worker looks for due deliveries when idle. */
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(600_000).default(1_000),
  /**
   * Attempts one process keeps under way at once. Delivery runs at most this
   * many per round trip: 128 at 100 ms is 1,280 a second.
   */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1_024).default(128),
  /** How long a claimed delivery stays with the worker that claimed it; must exceed WEBHOOK_TIMEOUT_MS. */
  WEBHOOK_LEASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /**
   * Webhook URLs may lead to loopback and private network addresses
   * (127/8, 10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7, ::1): a
   * receiver on the same machine or network. Off, they are refused at
   * registration and at every connection (domain/webhooks/target-address.ts);
   * link-local and cloud metadata addresses are refused either way.
   */
  WEBHOOK_ALLOW_PRIVATE: z
    .enum(['yes', 'no', 'true', 'false', '1', '0'], { error: 'must be true or false' })
    .transform((v) => v === 'yes' || v === 'true' || v === '1')
    .default(false),
  /** Days a delivered or failed webhook delivery is kept (attempts and body) before the retention pass deletes it; 0 keeps them. */
  WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce
    .number({ error: 'must be a whole number of days from 0 to 36500 (0 keeps deliveries forever)' })
    .int({ error: 'must be a whole number of days from 0 to 36500 (0 keeps deliveries forever)' })
    .min(0, 'must be a whole number of days from 0 to 36500 (0 keeps deliveries forever)')
    .max(36_500, 'must be a whole number of days from 0 to 36500 (0 keeps deliveries forever)')
    .default(30),
  /** LINE's Messaging API and data API (content); the simulator's URL in tests and demos. */
  LINE_API_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('https://api.line.me'),
  LINE_DATA_API_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('https://api-data.line.me'),
  /** One call to LINE (content download, reply, push) at most. */
  LINE_API_TIMEOUT_MS: ms(10_000),
  /** Slips one LINE user may send a channel per minute (0: no limit). */
  LINE_EVENTS_PER_USER_PER_MIN: z.coerce.number().int().min(0).max(100_000).default(10),
  /** How long a channel's staff notes are collected before one push to each staff target (a group push counts once per member against LINE's quota). */
  LINE_STAFF_BATCH_MS: ms(60_000),
  /** When the staff's daily summary is pushed, Bangkok time (HH:MM), or off. */
  LINE_SUMMARY_AT: z
    .string()
    .trim()
    .regex(/^(off|([01][0-9]|2[0-3]):[0-5][0-9])$/, { error: 'must be a Bangkok time as HH:MM (00:00 to 23:59), or "off"' })
    .default('21:00'),
  WORKERS: z.union([z.literal('auto'), z.coerce.number().int().min(0).max(256)], { error: 'must be a whole number from 0 to 256, or "auto"' }).default(1),
});

export type Config = Omit<z.infer<typeof configSchema>, 'HOLD_STALE_MS' | 'REQUEST_TIMEOUT_MS'> & {
  HOLD_STALE_MS: number;
  REQUEST_TIMEOUT_MS: number;
  /** Raw env, for adapters that read their own settings (UPSTREAMS…). */
  env: NodeJS.ProcessEnv;
  /** Where SECRETS_KEY came from when no setting gave it: the file a first start made beside the SQLite database (files/secrets-key-file.ts). */
  secretsKeyFile?: string;
  /** `serve` made SECRETS_KEY this start and writes it to secretsKeyFile once it is up. */
  secretsKeyUnsaved?: boolean;
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The bad value, for the message; a URL's credentials are never echoed. */
function shown(name: string, value: string | undefined): string {
  if (value === undefined) return 'nothing';
  if (name === 'METRICS_TOKEN' || name === 'SECRETS_KEY') return `${value.length} characters`;
  if (name === 'DATABASE_URL') return JSON.stringify(value.replace(/\/\/[^@/]*@/, '//***@'));
  return JSON.stringify(value);
}

/**
 * The settings that hold secrets. Each may come from a file instead of the
 * environment, so it never sits in an env file or a process listing:
 * NAME_FILE=<path>, or systemd's credential named NAME
 * (LoadCredential=NAME:<path>, read from $CREDENTIALS_DIRECTORY).
 * UPSTREAMS has UPSTREAMS_FILE of its own (upstream/config.ts).
 */
export const SECRET_SETTINGS = ['SECRETS_KEY', 'METRICS_TOKEN', 'DATABASE_URL'] as const;

/**
 * `env` with every secret setting given by file read into it: NAME_FILE
 * first, then the credential NAME when neither NAME nor NAME_FILE is set.
 * One trailing line break is dropped (`openssl rand -hex 32 > file` writes one).
 */
function withSecretFiles(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  const set = (name: string) => env[name] !== undefined && env[name] !== '';
  for (const name of SECRET_SETTINGS) {
    const file = `${name}_FILE`;
    if (set(name) && set(file)) throw new ConfigError(`invalid configuration:\n  ${name}: set ${name} or ${file}, not both`);
    if (set(file)) out[name] = readSecretFile(file, env[file]!);
    else if (!set(name) && set('CREDENTIALS_DIRECTORY')) {
      const credential = join(env.CREDENTIALS_DIRECTORY!, name);
      const value = readSecretFile(`the credential ${name}`, credential, { missingIsUnset: true });
      if (value !== undefined) out[name] = value;
    }
  }
  return out;
}

function readSecretFile(what: string, path: string, { missingIsUnset = false } = {}): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    if (missingIsUnset && code === 'ENOENT') return undefined;
    throw new ConfigError(`invalid configuration:\n  ${what}: cannot read ${JSON.stringify(path)} (${code})`);
  }
  return text.replace(/(\r?\n)+$/, '');
}

export function loadConfig(rawEnv: NodeJS.ProcessEnv = process.env): Config {
  const env = withSecretFiles(rawEnv);
  // Empty strings count as unset, as in most 12-factor tools.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message} (got ${shown(String(i.path[0]), present[String(i.path[0])])})`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  if (c.WEBHOOK_LEASE_MS <= c.WEBHOOK_TIMEOUT_MS) {
    throw new ConfigError(`invalid configuration:\n  WEBHOOK_LEASE_MS: must be longer than WEBHOOK_TIMEOUT_MS (${c.WEBHOOK_TIMEOUT_MS}), or a slow attempt could be sent twice (got ${c.WEBHOOK_LEASE_MS})`);
  }
  return {
    ...c,
    HOLD_STALE_MS: c.HOLD_STALE_MS ?? c.UPSTREAM_TIMEOUT_MS + 60_000,
    REQUEST_TIMEOUT_MS: c.REQUEST_TIMEOUT_MS ?? c.UPSTREAM_TIMEOUT_MS + 20_000,
    env,
    ...(c.SECRETS_KEY ? {} : keyBesideDatabase(c.DATABASE_URL, readSecretsKeyFile)),
  };
}

/** The key a first start made beside a SQLite database, when there is one (`secretsKeyFile` names it). */
export function keyBesideDatabase(databaseUrl: string, open: (path: string) => Buffer<ArrayBuffer> | null): Pick<Config, 'SECRETS_KEY' | 'secretsKeyFile'> {
  const file = secretsKeyFileOf(databaseUrl);
  if (file === null) return {};
  let key: Buffer<ArrayBuffer> | null;
  try {
    key = open(file);
  } catch (err) {
    throw new ConfigError(`invalid configuration:\n  SECRETS_KEY: ${(err as Error).message}`);
  }
  return key ? { SECRETS_KEY: key, secretsKeyFile: file } : {};
}
