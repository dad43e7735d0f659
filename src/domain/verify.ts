// The one code path every verification takes: authenticate, check the body,
// hold a credit, ask the network, then settle (charge) or release (free).
// docs/contract.md#order-of-checks fixes the order and texts of the errors.
import type { Logger } from './ports/logger.js';
import { constraintViolation, type Store } from './ports/store.js';
import type { Upstream } from './ports/upstream.js';
import { ACCOUNT_ERRORS, type AccountErrorKind } from './errors.js';
import { readSlipImage } from './verify-image.js';
import { AccountSlots } from './account-slots.js';
import type { ImageDecoder } from './ports/images.js';
import { parseSlipQr, type SlipRef } from './slip-qr.js';
import type { RequestErrorRecord, VerifiedSlip } from './types.js';
import type { ChannelVerifyInput, VerifyInput, VerifyOutcome, VerifyTrace } from './verify-types.js';
import type { KeyResolver } from './key-lookup.js';
import { ReceiverDirectory } from './receiver-directory.js';
import { receiverRefusal, receiverVerdict } from './receiver-policy.js';
import { askNetwork } from './ask-network.js';
import { evaluateChecks, type CheckRequest, type CheckResults } from './checks.js';
import { duplicateHistory } from './duplicate-history.js';
import type { FailedAuthBrake } from './failed-auth-brake.js';
import { AuthRefusals } from './auth-refusals.js';
import { outboxRecords, verificationSucceeded } from './webhooks/events.js';
import type { WebhookEventType } from './webhooks/types.js';
import { payableRequest, payWithSlip, type PaymentVerdict } from './payments/paying.js';
import { paymentEvent } from './payments/events.js';
import type { PaymentRequest } from './payments/types.js';
import { bodyCheck, failure, successRecord, imageRefusal, requestErrorRecord, type FailureFacts, type KeyedWho, type Who } from './verify-records.js';

export type { VerifyInput, VerifyOutcome } from './verify-types.js';

export interface VerificationDeps {
  store: Store;
  upstream: Upstream;
  /** Whole budget for the network call (10 s, docs/contract.md#limits). */
  timeoutMs: number;
  logger: Logger;
  now?: () => Date;
  newId: () => string;
  /** Resolves API keys (and caches them; see key-lookup.ts). */
  keys: KeyResolver;
  /** Each account's receiver policy and receivers, cached; without it they are read for every verification. */
  receivers?: ReceiverDirectory;
  /** Verifications one account may have at the network at once (busy beyond). */
  maxInFlightPerAccount?: number;
  /** The serving process's lease, recorded on each hold (see lease.ts). */
  instanceId?: () => string | null;
  /** Reads the slip QR of `image` bodies (the worker pool); without it they are refused. */
  images?: ImageDecoder;
  /**
   * Pictures one account may have waiting for or on a decoder thread (per
   * process); more get 429 before they queue, so one key's flood cannot fill
   * the image pool's queue that every merchant shares.
   */
  maxPicturesPerAccount?: number;
  /** Bounds what refused authentications from one address cost (failed-auth-brake.ts); without it each is recorded. */
  authBrake?: FailedAuthBrake;
  /** Webhook listeners (a per-account cache); absent: no events are written. */
  webhooks?: {
    endpointsFor(accountId: string, type: WebhookEventType): Promise<string[]>;
    /** Called after a settle wrote deliveries, so the worker need not wait for its next poll. */
    written?(): void;
  };
}

const UNAVAILABLE: VerifyOutcome = { kind: 'unavailable', message: 'service temporarily unavailable' };

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
  private readonly perAccount = new Map<string, number>();
  private readonly maxPerAccount: number;
  private readonly pictureSlots: AccountSlots;
  private readonly receivers: ReceiverDirectory;
  private readonly refusals: AuthRefusals;

  constructor(private readonly deps: VerificationDeps) {
    this.receivers = deps.receivers ?? new ReceiverDirectory(deps.store, 0);
    this.now = deps.now ?? (() => new Date());
    this.maxPerAccount = deps.maxInFlightPerAccount ?? Number.POSITIVE_INFINITY;
    this.pictureSlots = new AccountSlots(deps.maxPicturesPerAccount ?? Number.POSITIVE_INFINITY);
    this.refusals = new AuthRefusals(deps);
  }

  /**
   * Never rejects. A store failure is `unavailable` (nothing charged, safe
   * to retry), except while recording a success: then the charge may have
   * committed, and `outcome_unknown` tells the caller not to retry blindly.
   */
  verify(input: VerifyInput): Promise<VerifyOutcome> {
    return this.track(this.run(input), input.requestId);
  }

  /** Counted for drain(); a failure inside becomes the outcome that says what the caller may do. */
  private track(work: Promise<VerifyOutcome>, requestId: string): Promise<VerifyOutcome> {
    const run = work.catch((err: unknown): VerifyOutcome => {
      this.logFailure(err, requestId);
      return err instanceof SettleFailedError ? { kind: 'outcome_unknown' } : UNAVAILABLE;
    });
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
    return run;
  }

  private logFailure(err: unknown, requestId: string): void {
    // No write on this path can clash with another by design (ids are new, holds and accounts are
    // checked under the row or document lock): a database rule that refuses one shows a broken guard.
    const broken = constraintViolation(err);
    if (broken) {
      this.deps.logger.error(
        { err, requestId, constraint: broken.constraint, bug: true },
        `bug: a write of a verification broke the database rule ${broken.constraint}; the database refused it (nothing was written) and the request failed`,
      );
    } else {
      this.deps.logger.error({ err, requestId }, 'verification failed inside slipgate');
    }
  }

  /** Resolves when every verification started so far has settled. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    // What the brake counted but has not written yet is not lost with the process.
    await this.refusals.writeSummaries(true);
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  private async run(input: VerifyInput): Promise<VerifyOutcome> {
    const address = input.clientAddress ?? input.clientIp ?? 'unknown';
    const braked = this.refusals.braked(address, input.requestId);
    if (braked) return braked;
    const anonymous: Who = { id: this.deps.newId(), requestId: input.requestId, accountId: null, keyId: null };

    if (!input.apiKey) return this.authRefusal('missing_api_key', anonymous, address);
    const found = await this.deps.keys.resolve(input.apiKey, input.clientIp);
    if (!found.ok && found.kind === 'invalid_api_key') return this.authRefusal('invalid_api_key', anonymous, address);
    // Refused before anything about the account is read: a leaked key tells its holder nothing.
    if (!found.ok) {
      // The answer stays the contract's; the record and the log say which address was judged, so a
      // proxy whose address slipgate saw (TRUST_PROXY_HOPS unset) is told apart from a wrong range.
      const seen = { clientIp: input.clientIp ?? null, clientIpFrom: input.clientIpFrom ?? null };
      if (input.trace) Object.assign(input.trace, { accountId: found.key.accountId, keyId: found.key.id, ...seen });
      const message = `${ACCOUNT_ERRORS.ip_not_allowed.message}: saw ${seen.clientIp ?? 'no address'}${seen.clientIpFrom ? ` (${seen.clientIpFrom})` : ''}`;
      return this.authRefusal('ip_not_allowed', { ...anonymous, accountId: found.key.accountId, keyId: found.key.id }, address, message);
    }
    const { key } = found;
    const who: KeyedWho = { ...anonymous, accountId: key.accountId, keyId: key.id };
    if (input.trace) Object.assign(input.trace, { accountId: key.accountId, keyId: key.id });

    // The hold below checks deletion and balance atomically; the account is
    // read only on the rare paths where the contract's error order needs it.
    const body = bodyCheck(await input.readBody(), input.maxQrcodeBodyBytes);
    if (!body.ok) {
      // 1022 comes before the body's problem, 1023 after it.
      const account = await this.liveAccount(who, {}, { mustPay: false });
      if (!account.ok) return account.refused;
      return { kind: 'bad_request', problem: body.problem, message: body.message, creditsRemaining: account.credits };
    }
    // A request the key cannot pay is a body error too: refused before any credit is held.
    const paying = body.paymentRequest === undefined ? undefined : await payableRequest(this.deps.store, key.accountId, body.paymentRequest);
    if (paying === null) {
      const account = await this.liveAccount(who, {}, { mustPay: false });
      if (!account.ok) return account.refused;
      return { kind: 'bad_request', problem: 'invalid', message: `paymentRequest ${body.paymentRequest} not found`, creditsRemaining: account.credits };
    }
    return this.verifySlip(body.image ? { ...who, source: 'image' } : who, body, body.checks, input.trace, paying);
  }

  /**
   * A slip sent through a LINE channel: the channel stands for the key
   * (`line:<channel id>` in the records), its account pays, and the rest is
   * the path every verification takes. Never rejects, like verify().
   */
  verifyForChannel(input: ChannelVerifyInput): Promise<VerifyOutcome> {
    const who: KeyedWho = { id: this.deps.newId(), requestId: input.requestId, accountId: input.accountId, keyId: input.keyId, source: 'line', lineUserId: input.lineUserId };
    return this.track(this.verifySlip(who, input.slip, input.checks, undefined, input.paymentRequestFor), input.requestId);
  }

  /** After the key: the picture or QR text read, then the hold and the network. */
  private async verifySlip(
    who: KeyedWho,
    slip: { qrcode: string; image?: undefined } | { qrcode?: undefined; image: Buffer },
    checks?: CheckRequest,
    trace?: VerifyTrace,
    paying?: PaymentRequest | ChannelVerifyInput['paymentRequestFor'],
  ): Promise<VerifyOutcome> {
    const { store } = this.deps;
    let qrcode: string;
    if (slip.image === undefined) qrcode = slip.qrcode;
    else {
      // No CPU for an account that could not pay: its credits are read before decoding (the hold still decides).
      const account = await this.liveAccount(who, {}, { mustPay: true });
      if (!account.ok) return account.refused;
      const release = this.pictureSlots.take(who.accountId);
      if (!release) return { kind: 'busy', message: 'too many pictures of this account are being read right now; retry shortly' };
      const read = await readSlipImage(this.deps.images, slip.image).finally(release);
      if (!read.ok && !read.unreadable) return imageRefusal(read.refused, read.message, account.credits);
      if (!read.ok) {
        await store.insertRequestError(this.errorRecord(who, { kind: 'unreadable_image', message: read.message, latencyMs: 0 }));
        return failure('unreadable_image', read.message, account.credits);
      }
      qrcode = read.qrcode;
    }

    const started = performance.now();
    const parsed = parseSlipQr(qrcode);
    if (!parsed.ok) {
      const account = await this.liveAccount(who, { qrcode }, { mustPay: true });
      if (!account.ok) return account.refused;
      const message = `invalid slip QR code: ${parsed.reason}`;
      await store.insertRequestError(this.errorRecord(who, { kind: 'invalid_qr', message, qrcode, latencyMs: 0 }));
      return failure('invalid_qr', message, account.credits);
    }

    // One account must not take all upstream capacity (per process).
    const inFlight = this.perAccount.get(who.accountId) ?? 0;
    if (inFlight >= this.maxPerAccount) {
      return { kind: 'busy', message: 'too many verifications in flight for this account; retry shortly' };
    }
    this.perAccount.set(who.accountId, inFlight + 1);
    try {
      return await this.holdAndVerify(who, qrcode, parsed.slip, started, checks, trace, paying);
    } finally {
      const left = (this.perAccount.get(who.accountId) ?? 1) - 1;
      if (left > 0) this.perAccount.set(who.accountId, left);
      else this.perAccount.delete(who.accountId);
    }
  }

  private async holdAndVerify(
    who: KeyedWho,
    qrcode: string,
    slip: SlipRef,
    started: number,
    checks?: CheckRequest,
    trace?: VerifyTrace,
    paying?: PaymentRequest | ChannelVerifyInput['paymentRequestFor'],
  ): Promise<VerifyOutcome> {
    const { store } = this.deps;
    // Read before the hold (from memory, mostly): a store failure here is a plain 503 with nothing held,
    // never after the bank answered.
    const [receivers, listeners] = await Promise.all([
      this.receivers.forAccount(who.accountId),
      this.deps.webhooks ? this.deps.webhooks.endpointsFor(who.accountId, 'verification.succeeded') : [],
    ]);
    const paidListeners = paying && this.deps.webhooks ? await this.deps.webhooks.endpointsFor(who.accountId, 'payment_request.paid') : [];
    const held = await store.holdCredit({ id: who.id, accountId: who.accountId, keyId: who.keyId, createdAt: this.now(), instanceId: this.deps.instanceId?.() ?? null });
    // Credits never go below zero, so a refused hold saw a balance of exactly 0.
    if (held.status === 'insufficient') return this.accountError('insufficient_fund', who, { qrcode, slip }, 0);
    if (held.status === 'no_account') return this.accountError('user_not_found', who, { qrcode, slip });

    const asked = performance.now();
    const result = await askNetwork(this.deps, { ...slip, requestId: who.requestId });
    const latencyMs = Math.round(performance.now() - started);
    if (trace) Object.assign(trace, { upstream: result.upstream, upstreamMs: Math.round(performance.now() - asked) });

    // A refused bank answer (another slip, broken data) arrives here as a
    // failure like any other: released, recorded, never charged.
    if (!result.ok) {
      const record = this.errorRecord(who, { kind: result.kind, message: result.message, qrcode, slip, upstream: result.upstream, latencyMs });
      const left = await store.releaseHold({ ...record, accountId: who.accountId });
      return failure(result.kind, result.message, left);
    }
    const data = result.slip;
    const receiver = receiverVerdict(receivers, data);
    if (receiver?.policy === 'require' && !receiver.passed) {
      // Free like every refused bank answer (no verified slip to use); the record says whom the bank named.
      const record = this.errorRecord(who, { kind: 'receiver_not_registered', message: receiverRefusal(data), qrcode, slip, upstream: result.upstream, latencyMs });
      return { kind: 'account_error', error: 'receiver_not_registered', creditsRemaining: await store.releaseHold({ ...record, accountId: who.accountId }) };
    }
    const record = successRecord(who, { qrcode, data, upstream: result.upstream, latencyMs }, this.now());
    // The event is written by the settle itself (the outbox): charged and announced, or neither.
    const deliveries = listeners.length > 0 ? outboxRecords(verificationSucceeded(record), who.accountId, listeners) : [];
    try {
      await (deliveries.length > 0 ? store.settleHold(record, deliveries) : store.settleHold(record));
    } catch (err) {
      throw new SettleFailedError(err);
    }
    const payment = paying ? await this.pay(paying, data, who, paidListeners) : undefined;
    if (deliveries.length > 0 || payment?.status === 'paid') this.deps.webhooks?.written?.();
    // lastUsedAt is an API key's; a LINE channel has none.
    if (who.source !== 'line') this.touch(who.keyId);
    // Settling only turns the hold into usage: the hold's balance is the one after the charge.
    const verified = { kind: 'verified', slip: data, qrcode, creditsRemaining: held.credits, ...(payment ? { paymentRequest: payment } : {}) } as const;
    return !checks && !receiver ? verified : { ...verified, checks: { ...(checks ? await this.runChecks(checks, data, who) : {}), ...(receiver ? { receiver } : {}) } };
  }

  /** After the charge: a store failure here leaves the payment undecided, so the outcome is unknown (500), like a failed settle. */
  private async pay(paying: PaymentRequest | NonNullable<ChannelVerifyInput['paymentRequestFor']>, slip: VerifiedSlip, who: KeyedWho, listeners: readonly string[]): Promise<PaymentVerdict | undefined> {
    const at = this.now();
    try {
      const request = typeof paying === 'function' ? await paying(slip) : paying;
      if (!request) return undefined;
      return await payWithSlip(this.deps.store, { request, slip, verificationId: who.id, at, deliveries: paymentEvent('payment_request.paid', listeners, () => at) });
    } catch (err) {
      throw new SettleFailedError(err);
    }
  }

  /** After settling, so the duplicate lookup can leave this verification out. */
  private async runChecks(checks: CheckRequest, data: VerifiedSlip, who: KeyedWho): Promise<CheckResults> {
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

  /**
   * The account, read where the contract's error order needs it before any
   * hold (a refused body, a picture, a bad QR): deleted is 1022; with
   * `mustPay`, no credits is 1023 with the balance read (0: credits never go
   * below zero). On the verify path itself the hold decides both atomically.
   */
  private async liveAccount(
    who: KeyedWho,
    about: Pick<FailureFacts, 'qrcode'>,
    { mustPay }: { mustPay: boolean },
  ): Promise<{ ok: true; credits: number } | { ok: false; refused: VerifyOutcome }> {
    const account = await this.deps.store.getAccount(who.accountId);
    if (!account || account.deletedAt) return { ok: false, refused: await this.accountError('user_not_found', who, about) };
    if (mustPay && account.credits <= 0) return { ok: false, refused: await this.accountError('insufficient_fund', who, about, account.credits) };
    return { ok: true, credits: account.credits };
  }

  /** 1020, 1021 and 1024: recorded one by one until the address's brake counts them instead. */
  private authRefusal(error: 'missing_api_key' | 'invalid_api_key' | 'ip_not_allowed', who: Who, address: string, recorded?: string): Promise<VerifyOutcome> | VerifyOutcome {
    if (this.refusals.record(address, who.requestId)) return this.accountError(error, who, {}, undefined, recorded);
    return { kind: 'account_error', error };
  }

  private async accountError(
    error: AccountErrorKind,
    who: Who,
    about: Pick<FailureFacts, 'qrcode' | 'slip'> = {},
    creditsRemaining?: number,
    /** What the record says, when it knows more than the answer. */
    recorded: string = ACCOUNT_ERRORS[error].message,
  ): Promise<VerifyOutcome> {
    await this.deps.store.insertRequestError(this.errorRecord(who, { kind: error, message: recorded, ...about }));
    return creditsRemaining === undefined ? { kind: 'account_error', error } : { kind: 'account_error', error, creditsRemaining };
  }

  private errorRecord(who: Who, facts: FailureFacts): RequestErrorRecord {
    return requestErrorRecord(who, facts, this.now());
  }

  private touch(keyId: string): void {
    const now = Date.now();
    if (now - (this.lastTouch.get(keyId) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.lastTouch.set(keyId, now);
    this.deps.store.touchApiKey(keyId, new Date(now)).catch((err: unknown) => {
      this.deps.logger.warn({ err, keyId }, 'could not record key use');
    });
  }
}
