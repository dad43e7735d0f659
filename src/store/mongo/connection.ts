// Connection settings and driver errors mapped to StoreError.
import type { ConnectOptions } from 'mongoose';
import { StoreError } from '../../domain/ports/store.js';

export interface MongoStoreOptions {
  /** Connections per process. Default 10 (URL: `?maxPoolSize=` wins). */
  maxPoolSize?: number;
  /** How long an operation waits for a usable server. Default 5 s. */
  serverSelectionTimeoutMs?: number;
}

/** Used when the URL names no database (`mongodb://host/`). */
const DEFAULT_DB_NAME = 'slipgate';

export function connectOptions(url: string, options: MongoStoreOptions = {}): ConnectOptions {
  const inUrl = (name: string) => new RegExp(`[?&]${name}=`, 'i').test(url);
  // Not `new URL()`: a replica-set URL lists several hosts, which URL rejects.
  const path = /^mongodb(?:\+srv)?:\/\/[^/?]*\/?([^?]*)/.exec(url)?.[1] ?? '';
  return {
    // An outage must fail the request fast (503), not queue it in memory.
    bufferCommands: false,
    autoIndex: false,
    autoCreate: false,
    ...(inUrl('maxPoolSize') ? {} : { maxPoolSize: options.maxPoolSize ?? 10 }),
    ...(inUrl('serverSelectionTimeoutMS') ? {} : { serverSelectionTimeoutMS: options.serverSelectionTimeoutMs ?? 5_000 }),
    ...(inUrl('connectTimeoutMS') ? {} : { connectTimeoutMS: 5_000 }),
    // A server that vanished without closing the socket never answers.
    ...(inUrl('socketTimeoutMS') ? {} : { socketTimeoutMS: 30_000 }),
    ...(path === '' ? { dbName: DEFAULT_DB_NAME } : {}),
    appName: 'slipgate',
  };
}

const DUPLICATE_KEY = 11000;
const UNAVAILABLE_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  'MongoServerClosedError',
]);
// HostUnreachable, HostNotFound, MaxTimeMSExpired, NetworkTimeout,
// ShutdownInProgress, PrimarySteppedDown, ExceededTimeLimit,
// NotWritablePrimary, InterruptedAtShutdown, InterruptedDueToReplStateChange,
// NotPrimaryNoSecondaryOk, NotPrimaryOrSecondary: transient, retry later.
const UNAVAILABLE_CODES = new Set([6, 7, 50, 89, 91, 189, 262, 10107, 11600, 11602, 13435, 13436]);
// bufferCommands: false makes mongoose throw these while (re)connecting.
const UNAVAILABLE_MESSAGES = /before initial connection is complete|Connection was force closed|client was closed|Topology is closed/i;

export function isDuplicateKey(err: unknown): boolean {
  const e = err as { code?: unknown; writeErrors?: { code?: unknown }[] };
  return e?.code === DUPLICATE_KEY || e?.writeErrors?.some((w) => w.code === DUPLICATE_KEY) === true;
}

function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (UNAVAILABLE_NAMES.has(err.name)) return true;
  if (typeof code === 'number' && UNAVAILABLE_CODES.has(code)) return true;
  return UNAVAILABLE_MESSAGES.test(err.message);
}

/** Runs a store call with driver errors mapped to StoreError. */
export async function mapped<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw mapError(err);
  }
}

function mapError(err: unknown): Error {
  if (err instanceof StoreError) return err;
  if (isDuplicateKey(err)) return new StoreError('conflict', 'record already exists', { cause: err });
  if (isUnavailable(err)) return new StoreError('unavailable', 'database unavailable', { cause: err });
  return err instanceof Error ? err : new Error(String(err));
}
