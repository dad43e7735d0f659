// The one code path every verification takes: authenticate, check the body,
// hold a credit, ask the network, then settle (charge) or release (free).
// Spec §5 and §7 fix the order and texts of the errors.
import type { Logger } from './ports/logger.js';
import type { Store } from './ports/store.js';
import type { Upstream } from './ports/upstream.js';
import { ACCOUNT_ERRORS, type AccountErrorKind } from './errors.js';
import { readSlipImage } from './verify-image.js';
import type { ImageDecoder } from './ports/images.js';
import { parseSlipQr, type SlipRef } from './slip-qr.js';
import type { ApiKey, ErrorKind, RequestErrorRecord, VerifiedSlip } from './types.js';
import type { VerifyInput, VerifyOutcome } from './verify-types.js';
import { KeyResolver } from './key-lookup.js';
import { askNetwork } from './ask-network.js';
import { checkVerifyBody } from './verify-request.js';
import { evaluateChecks, type CheckRequest, type CheckResults } from './checks.js';
import { duplicateHistory } from './duplicate-history.js';

export type { VerifyBody, VerifyInput, VerifyOutcome } from './verify-types.js';

export interface VerificationDeps {
  store: Store;
  upstream: Upstream;
  /** Whole budget for the network call (spec §8: 10 s). */
  timeoutMs: number;
  logger: Logger;
  now?: () => Date;
  newId: () => string;
  /** How long a key lookup may be reused; 0 disables the cache. */
  keyCacheTtlMs?: number;
  /** Verifications one account may have at the network at once (429 beyond). */
  maxInFlightPerAccount?: number;
  /** The serving process's lease, recorded on each hold (see lease.ts). */
  instanceId?: () => string | null;
  /** Reads the slip QR of `image` bodies (the worker pool); without it they are refused. */
  images?: ImageDecoder;
}

const SUCCESS_MESSAGE = 'slip verified';
const UNAVAILABLE: VerifyOutcome = { httpStatus: 503, body: { status: 'error', message: 'service temporarily unavailable' } };
/** The bank said yes but recording the charge failed: it may have committed. */
const OUTCOME_UNKNOWN: VerifyOutcome = {
  httpStatus: 500,
  body: { status: 'error', message: 'the verification could not be recorded and may have been charged; do not retry: look it up by x-request-id first' },
};

/** A store failure while recording a success: whether the charge committed is unknown. */
class SettleFailedError extends Error {
  constructor(cause: unknown) {
    super('recording a verified slip failed', { cause });
  }
}
/** lastUsedAt is for people, so one write a minute per key is plenty. */
const TOUCH_INTERVAL_MS = 60_000;

export class VerificationService {
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly lastTouch = new Map<string, number>();
  private readonly now: () => Date;
  private readonly keys: KeyResolver;
  private readonly perAccount = new Map<string, number>();
  private readonly maxPerAccount: number;

  constructor(private readonly deps: VerificationDeps) {
    this.now = deps.now ?? (() => new Date());
    this.keys = new KeyResolver(deps.store, deps.keyCacheTtlMs ?? 0);
    this.maxPerAccount = deps.maxInFlightPerAccount ?? Number.POSITIVE_INFINITY;
  }

  /**
   * Never rejects. A store failure is a 503 (nothing charged, safe to
   * retry), except while recording a success: then the charge may have
   * committed, and a 500 tells the caller not to retry blindly.
   */
  verify(input: VerifyInput): Promise<VerifyOutcome> {
    const run = this.run(input).catch((err: unknown) => {
      this.deps.logger.error({ err, requestId: input.requestId }, 'verification failed inside slipgate');
      return err instanceof SettleFailedError ? OUTCOME_UNKNOWN : UNAVAILABLE;
    });
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
    return run;
  }

  /** Resolves when every verification started so far has settled. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  private async run(input: VerifyInput): Promise<VerifyOutcome> {
    const { store } = this.deps;
    const base = { id: this.deps.newId(), requestId: input.requestId };

    if (!input.apiKey) return this.accountError('missing_api_key', { ...base, accountId: null, keyId: null });
    const found = await this.keys.resolve(input.apiKey, input.clientIp);
    if (!found.ok && found.kind === 'invalid_api_key') return this.accountError('invalid_api_key', { ...base, accountId: null, keyId: null });
    // Refused before anything about the account is read: a leaked key tells its holder nothing.
    if (!found.ok) return this.accountError('ip_not_allowed', { ...base, accountId: found.key.accountId, keyId: found.key.id });
    const { key } = found;
    const who = { ...base, accountId: key.accountId, keyId: key.id };

    // The hold below checks deletion and balance atomically; the account is
    // read only on the rare paths where the spec's error order needs it.
    const body = checkVerifyBody(input.contentType, input.rawBody, input.bodyProblem, input.maxQrcodeBodyBytes);
    if (!body.ok) {
      const account = await store.getAccount(key.accountId);
      if (!account || account.deletedAt) return this.accountError('user_not_found', who);
      return { httpStatus: body.status, body: { status: 'error', message: body.message }, creditsRemaining: account.credits };
    }
    let qrcode: string;
    if (body.image === undefined) qrcode = body.qrcode;
    else {
      // No CPU for an account that could not pay: its credits are read before decoding (the hold still decides).
      const account = await store.getAccount(key.accountId);
      if (!account || account.deletedAt) return this.accountError('user_not_found', who);
      if (account.credits <= 0) return withCredits(await this.accountError('insufficient_fund', who), 0);
      const read = await readSlipImage(this.deps.images, body.image);
      if (!read.ok && !read.unreadable) return { httpStatus: read.status, body: { status: 'error', message: read.message }, creditsRemaining: account.credits };
      if (!read.ok) {
        await store.insertRequestError(this.errorRecord(who, null, null, 'unreadable_image', read.message, null, 0));
        return withCredits(failure('unreadable_image', read.message), account.credits);
      }
      qrcode = read.qrcode;
    }

    const started = performance.now();
    const parsed = parseSlipQr(qrcode);
    if (!parsed.ok) {
      const account = await store.getAccount(key.accountId);
      if (!account || account.deletedAt) return this.accountError('user_not_found', { ...who, qrcode });
      if (account.credits <= 0) return withCredits(await this.accountError('insufficient_fund', { ...who, qrcode }), account.credits);
      const message = `invalid slip QR code: ${parsed.reason}`;
      await store.insertRequestError(this.errorRecord(who, qrcode, null, 'invalid_qr', message, null, 0));
      return withCredits(failure('invalid_qr', message), account.credits);
    }

    // One account must not take all upstream capacity (per process).
    const inFlight = this.perAccount.get(key.accountId) ?? 0;
    if (inFlight >= this.maxPerAccount) {
      return { httpStatus: 429, body: { status: 'error', message: 'too many verifications in flight for this account; retry shortly' } };
    }
    this.perAccount.set(key.accountId, inFlight + 1);
    try {
      const source = body.image ? { source: 'image' as const } : {};
      return await this.holdAndVerify({ ...who, ...source }, key, qrcode, parsed.slip, started, body.checks);
    } finally {
      const left = (this.perAccount.get(key.accountId) ?? 1) - 1;
      if (left > 0) this.perAccount.set(key.accountId, left);
      else this.perAccount.delete(key.accountId);
    }
  }

  private async holdAndVerify(
    who: { id: string; requestId: string; accountId: string; keyId: string; source?: 'image' },
    key: ApiKey,
    qrcode: string,
    slip: SlipRef,
    started: number,
    checks?: CheckRequest,
  ): Promise<VerifyOutcome> {
    const { store } = this.deps;
    const held = await store.holdCredit({ id: who.id, accountId: key.accountId, keyId: key.id, createdAt: this.now(), instanceId: this.deps.instanceId?.() ?? null });
    // Credits never go below zero, so a refused hold saw a balance of exactly 0.
    if (held.status === 'insufficient') return withCredits(await this.accountError('insufficient_fund', { ...who, qrcode, slip }), 0);
    if (held.status === 'no_account') return this.accountError('user_not_found', { ...who, qrcode, slip });

    const result = await askNetwork(this.deps, { ...slip, requestId: who.requestId });
    const latencyMs = Math.round(performance.now() - started);

    // A refused bank answer (another slip, broken data) arrives here as a
    // failure like any other: released, recorded, never charged.
    if (!result.ok) {
      const left = await store.releaseHold({ ...this.errorRecord(who, qrcode, slip, result.kind, result.message, result.upstream, latencyMs), accountId: key.accountId });
      return withCredits(failure(result.kind, result.message), left);
    }
    const data = result.slip;
    try {
      await store.settleHold({
        id: who.id,
        accountId: key.accountId,
        keyId: key.id,
        requestId: who.requestId,
        qrcode,
        transactionId: data.transactionId,
        amount: data.amount,
        sendingBank: data.senderBankCode,
        receivingBank: data.receiverBankCode,
        upstream: result.upstream,
        latencyMs,
        response: data,
        createdAt: this.now(),
        ...(who.source ? { source: who.source } : {}),
      });
    } catch (err) {
      throw new SettleFailedError(err);
    }
    this.touch(key);
    const success = { status: 'success', data, message: SUCCESS_MESSAGE, qrcode } as const;
    // Settling only turns the hold into usage: the hold's balance is the one after the charge.
    const creditsRemaining = held.credits;
    // Without `checks` the body is exactly the spec's; with them, one extra field.
    if (!checks) return { httpStatus: 200, body: success, creditsRemaining };
    return { httpStatus: 200, body: { ...success, checks: await this.runChecks(checks, data, who) }, creditsRemaining };
  }

  /** After settling, so the duplicate lookup can leave this verification out. */
  private async runChecks(checks: CheckRequest, data: VerifiedSlip, who: { id: string; requestId: string; accountId: string }): Promise<CheckResults> {
    const history = checks.duplicate
      ? await duplicateHistory(this.deps.store, { accountId: who.accountId, transactionId: data.transactionId, sendingBank: data.senderBankCode, excludeId: who.id }).catch(
          (err: unknown) => {
            // Already charged: answer the verification, report the check as unknown.
            this.deps.logger.error({ err, requestId: who.requestId }, 'duplicate check lookup failed');
            return { error: 'could not look up earlier verifications; the slip was verified and charged' };
          },
        )
      : undefined;
    return evaluateChecks(checks, data, { now: this.now(), history });
  }

  private async accountError(
    kind: AccountErrorKind,
    who: { id: string; requestId: string; accountId: string | null; keyId: string | null; qrcode?: string; slip?: SlipRef },
  ): Promise<VerifyOutcome> {
    const { code, status, message } = ACCOUNT_ERRORS[kind];
    await this.deps.store.insertRequestError(this.errorRecord(who, who.qrcode ?? null, who.slip ?? null, kind, message, null, null));
    return { httpStatus: status, body: { status: 'error', code, message } };
  }

  private errorRecord(
    who: { id: string; requestId: string; accountId: string | null; keyId: string | null },
    qrcode: string | null,
    /** The parsed QR, when it parsed: a failed slip is then found like a verified one. */
    slip: SlipRef | null,
    kind: ErrorKind,
    message: string,
    upstream: string | null,
    latencyMs: number | null,
  ): RequestErrorRecord {
    return {
      id: who.id,
      accountId: who.accountId,
      keyId: who.keyId,
      requestId: who.requestId,
      qrcode,
      transactionId: slip?.transRef ?? null,
      sendingBank: slip?.sendingBank ?? null,
      kind,
      message,
      upstream,
      latencyMs,
      createdAt: this.now(),
    };
  }

  /** Called when a key is revoked or an account deleted in this process. */
  forgetKey(keyId: string): void {
    this.keys.evictKey(keyId);
  }

  forgetAccount(accountId: string): void {
    this.keys.evictAccount(accountId);
  }

  private touch(key: ApiKey): void {
    const now = Date.now();
    if (now - (this.lastTouch.get(key.id) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.lastTouch.set(key.id, now);
    this.deps.store.touchApiKey(key.id, new Date(now)).catch((err: unknown) => {
      this.deps.logger.warn({ err, keyId: key.id }, 'could not record key use');
    });
  }
}

function failure(kind: ErrorKind, message: string): VerifyOutcome {
  return { httpStatus: 200, body: { status: 'error', message }, kind };
}

function withCredits(outcome: VerifyOutcome, creditsRemaining: number): VerifyOutcome {
  return { ...outcome, creditsRemaining };
}
