// State of a simulated bank: the credentials it accepts, the tokens it has
// issued, what it has been asked, and how it should misbehave. Tests flip the
// knobs between requests; `slipgate simulate-bank` sets them once.
import { createHash, randomBytes } from 'node:crypto';
import type { RawSlipData } from '../../domain/types.js';
import { sandboxTransaction } from '../sandbox/transaction.js';

/** What a verify call answers (before the sandbox outcome in the transRef is considered). */
type BankAnswer =
  /** The transaction, or whatever the transRef's sandbox outcome asks for. */
  | 'normal'
  /** The bank's "slip not found / too old" code. */
  | 'not_found'
  /** A bank status code that is neither success nor not-found. */
  | 'bank_error'
  /** HTTP 200 whose body is not JSON. */
  | 'malformed_json'
  /** HTTP 200 whose body never ends: JSON-looking bytes until the client hangs up. */
  | 'endless_body'
  /** Slip APIs: the bank behind has the slip but publishes it later ("ask again in `pendingMinutes`"). */
  | 'pending'
  /** Slip APIs: the domain's quota or package is used up. */
  | 'quota_exceeded'
  /** Slip APIs: the key is refused (revoked, wrong branch, IP not allowed). */
  | 'key_refused'
  /** Slip APIs: the slip with the provider's "seen before" mark. */
  | 'duplicate';

/** A verify answer given verbatim: a tester's pick of a provider's documented (or undocumented) reply. */
export interface RawReply {
  status: number;
  body: unknown;
}

export interface BankBehavior {
  /** Added before every verify answer. */
  latencyMs: number;
  /** Added before every token answer. */
  tokenLatencyMs: number;
  /** Share (0..1) of verify calls answered with HTTP 500 at random. */
  errorRate: number;
  /**
   * Share (0..1) of transactions the bank publishes late: decided once per
   * transaction from a hash of its bank and reference, so a slip is late on
   * every call and every run.
   */
  lateShare: number;
  /** A late transaction is answered "not found" until this many seconds after the bank was first asked about it. */
  lateSeconds: number;
  /** When set, every verify call is answered with this HTTP status (e.g. 503). */
  httpStatus: number | null;
  answer: BankAnswer;
  /** expires_in of tokens issued from now on. */
  tokenLifetimeSec: number;
  /**
   * Changes the transaction before a success is sent: a misrouted proxy or a
   * faulty bank answering about another slip, or with broken data.
   */
  rewrite: ((tx: RawSlipData) => Record<string, unknown>) | null;
  /** Slip APIs: the delay the provider names with a `pending` answer, in minutes. */
  pendingMinutes: number;
  /**
   * Slip APIs: verifications left on the domain's package; each success
   * spends one, and at 0 every verify gets the provider's quota-used-up
   * answer. null: no limit (the quota call reports a large number).
   */
  quota: number | null;
  /** When set, every verify call that passes authentication is answered with exactly this. */
  reply: RawReply | null;
}

export interface BankCalls {
  token: number;
  verify: number;
  /** Verify calls refused with 401 (missing, unknown or expired token). */
  unauthorized: number;
  /** Slip APIs: verify calls that asked the provider for its own duplicate, amount or receiver checks. */
  providerChecks: number;
  /** Slip APIs: calls of the quota endpoint. */
  quota: number;
}

/**
 * Late transactions remembered with the time they were first asked about;
 * beyond this many the oldest is forgotten (asked again, its delay restarts),
 * so a long load test cannot grow the simulator without bound.
 */
const MAX_LATE_REMEMBERED = 100_000;

/**
 * kbank: client id / secret; scb: API key / secret; slipok: branch id / API key;
 * rdcw: client id / secret; easyslip: branch name / API key; slip2go: shop / API secret.
 */
export interface BankCredentials {
  id: string;
  secret: string;
}

const DEFAULT_BEHAVIOR: BankBehavior = {
  latencyMs: 0,
  tokenLatencyMs: 0,
  errorRate: 0,
  lateShare: 0,
  lateSeconds: 60,
  httpStatus: null,
  answer: 'normal',
  tokenLifetimeSec: 3600,
  rewrite: null,
  pendingMinutes: 1,
  quota: null,
  reply: null,
};

export class SimulatedBankState {
  behavior: BankBehavior;
  readonly calls: BankCalls = { token: 0, verify: 0, unauthorized: 0, providerChecks: 0, quota: 0 };
  /** token → expiry time (ms). */
  private readonly tokens = new Map<string, number>();
  /** Late transaction → when it was first asked about (ms); insertion order is age. */
  private readonly firstAsked = new Map<string, number>();

  constructor(
    readonly credentials: BankCredentials,
    behavior: Partial<BankBehavior> = {},
    private readonly random: () => number = Math.random,
    readonly now: () => number = Date.now,
  ) {
    this.behavior = { ...DEFAULT_BEHAVIOR, ...behavior };
  }

  issueToken(): { token: string; lifetimeSec: number } {
    const token = randomBytes(24).toString('base64url');
    const lifetimeSec = this.behavior.tokenLifetimeSec;
    this.tokens.set(token, this.now() + lifetimeSec * 1000);
    return { token, lifetimeSec };
  }

  /** Accepts "Bearer <token>" for a token this bank issued and that has not expired. */
  acceptsBearer(header: string | undefined): boolean {
    const match = /^Bearer (\S+)$/i.exec(header ?? '');
    const expiresAt = match ? this.tokens.get(match[1]!) : undefined;
    return expiresAt !== undefined && this.now() < expiresAt;
  }

  /** Every issued token stops working: the next verify gets 401. */
  expireTokens(): void {
    this.tokens.clear();
  }

  /** The transaction a success answers with, after any rewrite. */
  transaction(sendingBank: string, transRef: string): Record<string, unknown> {
    const tx = sandboxTransaction(sendingBank, transRef);
    return this.behavior.rewrite ? this.behavior.rewrite(tx) : tx;
  }

  /** Whether the bank shows this transaction yet: a late one (lateShare) only lateSeconds after it was first asked about. */
  published(sendingBank: string, transRef: string): boolean {
    const { lateShare, lateSeconds } = this.behavior;
    if (lateShare <= 0) return true;
    const key = `${sendingBank}:${transRef}`;
    const roll = createHash('sha256').update(`late:${key}`).digest().readUInt32BE(0) / 2 ** 32;
    if (roll >= lateShare) return true;
    const now = this.now();
    let first = this.firstAsked.get(key);
    if (first === undefined) {
      if (this.firstAsked.size >= MAX_LATE_REMEMBERED) this.firstAsked.delete(this.firstAsked.keys().next().value!);
      this.firstAsked.set(key, now);
      first = now;
    }
    return now >= first + lateSeconds * 1000;
  }

  /** Spends one verification of the package; false when none is left (the quota-used-up answer). */
  spendQuota(): boolean {
    const { quota } = this.behavior;
    if (quota === null) return true;
    if (quota <= 0) return false;
    this.behavior.quota = quota - 1;
    return true;
  }

  /** Whether this verify call fails at random (errorRate). */
  randomFailure(): boolean {
    return this.behavior.errorRate > 0 && this.random() < this.behavior.errorRate;
  }
}
