// State of a simulated bank: the credentials it accepts, the tokens it has
// issued, what it has been asked, and how it should misbehave. Tests flip the
// knobs between requests; `slipgate simulate-bank` sets them once.
import { randomBytes } from 'node:crypto';
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
  | 'malformed_json';

export interface BankBehavior {
  /** Added before every verify answer. */
  latencyMs: number;
  /** Added before every token answer. */
  tokenLatencyMs: number;
  /** Share (0..1) of verify calls answered with HTTP 500 at random. */
  errorRate: number;
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
}

export interface BankCalls {
  token: number;
  verify: number;
  /** Verify calls refused with 401 (missing, unknown or expired token). */
  unauthorized: number;
}

/** kbank: client id / secret; scb: API key / secret. */
export interface BankCredentials {
  id: string;
  secret: string;
}

const DEFAULT_BEHAVIOR: BankBehavior = {
  latencyMs: 0,
  tokenLatencyMs: 0,
  errorRate: 0,
  httpStatus: null,
  answer: 'normal',
  tokenLifetimeSec: 3600,
  rewrite: null,
};

export class SimulatedBankState {
  behavior: BankBehavior;
  readonly calls: BankCalls = { token: 0, verify: 0, unauthorized: 0 };
  /** token → expiry time (ms). */
  private readonly tokens = new Map<string, number>();

  constructor(
    readonly credentials: BankCredentials,
    behavior: Partial<BankBehavior> = {},
    private readonly random: () => number = Math.random,
    private readonly now: () => number = Date.now,
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

  /** Whether this verify call fails at random (errorRate). */
  randomFailure(): boolean {
    return this.behavior.errorRate > 0 && this.random() < this.behavior.errorRate;
  }
}
