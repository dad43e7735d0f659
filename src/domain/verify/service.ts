// The one code path every verification takes: authenticate, check the body,
// hold a credit, ask the network, then settle (charge) or release (free).
// docs/contract.md#order-of-checks fixes the order and texts of the errors.
import { ACCOUNT_ERRORS, type AccountErrorKind } from '../errors.js';
import { readSlipImage } from './image.js';
import { AccountSlots } from '../keys/account-slots.js';
import { parseSlipQr, type SlipRef } from './slip-qr.js';
import type { RequestErrorRecord } from '../types.js';
import type { ChannelVerifyInput, Late, VerifyInput, VerifyOutcome, VerifyTrace } from './types.js';
import type { VerificationDeps } from './deps.js';
import { ReceiverDirectory } from '../receivers/directory.js';
import { receiverRefusal, receiverVerdict } from '../receivers/policy.js';
import { askNetwork, slipQuery } from './ask-network.js';
import type { CheckRequest } from '../checks/run.js';
import { KeyGate } from '../keys/gate.js';
import { KeyTouches } from '../keys/touches.js';
import { leased, outboxRecords, verificationSucceeded } from '../webhooks/events.js';
import { payableRequest, recordedVerdict } from '../payments/paying.js';
import { failureOutcome } from './failures.js';
import { planPayment, settleWithPayment, type PaymentToPay } from './payment.js';
import { earlierAnswer, type EarlierAnswer } from './replay.js';
import type { PaymentRequest } from '../payments/types.js';
import { verifiedAnswer } from './run-checks.js';
import { recheckInstead } from '../rechecks/start.js';
import type { UpstreamFailure } from '../ports/upstream.js';
import type { WebhookEventType } from '../webhooks/types.js';
import { bodyCheck, failure, successRecord, imageRefusal, requestErrorRecord, type FailureFacts, type KeyedWho, type Who } from './records.js';

export type { VerifyInput, VerifyOutcome } from './types.js';
export type { VerificationDeps } from './deps.js';

export class VerificationService {
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly now: () => Date;
  /** Verifications of one account in flight to the bank (per process). */
  private readonly upstreamSlots: AccountSlots;
  /** Pictures of one account being read (per process); the LINE bridge reads its pictures under the same cap. */
  readonly pictureSlots: AccountSlots;
  private readonly receivers: ReceiverDirectory;
  /** The door of every keyed route, this one and the payment request routes (src/http/keyed.ts). */
  readonly keyGate: KeyGate;
  private readonly touches: KeyTouches;

  constructor(private readonly deps: VerificationDeps) {
    this.receivers = deps.receivers ?? new ReceiverDirectory(deps.store, 0);
    this.now = deps.now ?? (() => new Date());
    this.upstreamSlots = new AccountSlots(deps.maxInFlightPerAccount ?? Number.POSITIVE_INFINITY);
    this.pictureSlots = new AccountSlots(deps.maxPicturesPerAccount ?? Number.POSITIVE_INFINITY);
    this.keyGate = new KeyGate(deps);
    this.touches = new KeyTouches(deps);
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
    const run = work.catch((err: unknown): VerifyOutcome => failureOutcome(err, requestId, this.deps.logger));
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
    return run;
  }

  /** Resolves when every verification started so far has settled. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    // What the brake counted but has not written yet is not lost with the process.
    await this.keyGate.drain();
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  private async run(input: VerifyInput): Promise<VerifyOutcome> {
    // The key gate every keyed route shares (keys/gate.ts): the brake, the lookup, the records of refusals.
    const admitted = await this.keyGate.admit(input);
    if (!admitted.ok) return admitted.refused;
    const { key } = admitted;
    const who: KeyedWho = { id: this.deps.newId(), requestId: input.requestId, accountId: key.accountId, keyId: key.id };

    // The hold below checks deletion and balance atomically; the account is
    // read only on the rare paths where the contract's error order needs it.
    const read = await input.readBody();
    if ('busy' in read) return { kind: 'busy', message: read.busy }; // as a busy decoder's: no balance
    const body = bodyCheck(read, input.maxQrcodeBodyBytes);
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
    return this.verifySlip(body.image ? { ...who, source: 'image' } : who, body, body.checks, input.trace, paying, { optIn: body.recheck === true });
  }

  /**
   * A slip sent through a LINE channel: the channel stands for the key (`line:<channel id>` in the records), its
   * account pays, and the rest is the path every verification takes (re-checks too). Never rejects, like verify().
   */
  verifyForChannel(input: ChannelVerifyInput): Promise<VerifyOutcome> {
    const who: KeyedWho = { id: this.deps.newId(), requestId: input.requestId, accountId: input.accountId, keyId: input.keyId, source: 'line', lineUserId: input.lineUserId };
    const late = input.recheckChannelId === undefined ? undefined : { optIn: false, line: { channelId: input.recheckChannelId, userId: input.lineUserId } };
    return this.track(this.verifySlip(who, input.slip, input.checks, undefined, input.paymentRequestFor, late), input.requestId);
  }

  /**
   * A slip picture uploaded on a payment request's checkout page: the
   * request's account pays, `checkout:<request id>` stands for the key in
   * the records, and the rest is the path of POST /api/v1/verify with
   * `paymentRequest` and `image`, re-checks included (customers upload the moment they paid, before banks show it). Never rejects.
   */
  verifyForCheckout(input: { request: PaymentRequest; image: Buffer; requestId: string }): Promise<VerifyOutcome> {
    const { request } = input;
    const who: KeyedWho = { id: this.deps.newId(), requestId: input.requestId, accountId: request.accountId, keyId: `checkout:${request.id}`, source: 'image' };
    return this.track(this.verifySlip(who, { image: input.image }, undefined, undefined, request, { optIn: false }), input.requestId);
  }

  /**
   * The slip a picture shows, read in the image pool like any upload's:
   * nothing asked, recorded or charged. For a request already paid, whose
   * page then says whether it was this slip that paid it. Null when no slip
   * QR is read (or the account's pictures are all being read right now).
   */
  async slipOfPicture(accountId: string, image: Buffer): Promise<SlipRef | null> {
    const release = this.pictureSlots.take(accountId);
    if (!release) return null;
    const read = await readSlipImage(this.deps.images, image).finally(release);
    if (!read.ok) return null;
    const parsed = parseSlipQr(read.qrcode);
    return parsed.ok ? parsed.slip : null;
  }

  /** A kept slip asked again through the same pool (domain/rechecks); confirmed, a verify's path on. Never rejects. */
  async recheckSlip(who: KeyedWho, qrcode: string, slip: SlipRef, paying?: PaymentToPay, checks?: CheckRequest): Promise<VerifyOutcome | UpstreamFailure> {
    const release = this.upstreamSlots.take(who.accountId);
    if (!release) return { kind: 'busy', message: 'too many verifications in flight for this account' };
    try {
      const answered = await askNetwork(this.deps, slipQuery(slip, qrcode, who.requestId));
      return answered.ok ? await this.track(this.holdAndVerify(who, qrcode, slip, performance.now(), checks, undefined, paying, { answered }), who.requestId) : answered;
    } finally {
      release();
    }
  }

  /** After the key: the picture or QR text read, then the hold and the network. */
  private async verifySlip(
    who: KeyedWho,
    slip: { qrcode: string; image?: undefined } | { qrcode?: undefined; image: Buffer },
    checks?: CheckRequest,
    trace?: VerifyTrace,
    paying?: PaymentToPay,
    late?: Late,
  ): Promise<VerifyOutcome> {
    const { store } = this.deps;
    let qrcode: string;
    if (slip.image === undefined) qrcode = slip.qrcode;
    else {
      // No CPU for an account that could not pay: its credits are read before decoding (the hold still decides).
      // A request already paid may be answered from its record (below), which costs nothing.
      const account = await this.liveAccount(who, {}, { mustPay: typeof paying !== 'object' || paying.status !== 'paid' });
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
    // The same slip again for the request it was verified for (paid or refused): answered from the record, before any hold (verify/replay.ts).
    if (typeof paying === 'object') {
      const earlier = await earlierAnswer(store, paying, parsed.slip);
      if (earlier) return this.answerFromRecord(who, earlier, qrcode, checks);
    }

    // One account must not take all upstream capacity (per process).
    const release = this.upstreamSlots.take(who.accountId);
    if (!release) return { kind: 'busy', message: 'too many verifications in flight for this account; retry shortly' };
    try {
      return await this.holdAndVerify(who, qrcode, parsed.slip, started, checks, trace, paying, late);
    } finally {
      release();
    }
  }

  private async holdAndVerify(
    who: KeyedWho,
    qrcode: string,
    slip: SlipRef,
    started: number,
    checks?: CheckRequest,
    trace?: VerifyTrace,
    paying?: PaymentToPay,
    late?: Late,
  ): Promise<VerifyOutcome> {
    const { store } = this.deps;
    // Read before the hold (from memory, mostly): a store failure here is a plain 503 with nothing held, never after
    // the bank answered. The endpoints listening to each event (none without webhooks).
    const listen = (type: WebhookEventType, wanted = true) => (wanted && this.deps.webhooks ? this.deps.webhooks.endpointsFor(who.accountId, type) : []);
    const [receivers, listeners, paidListeners, lateListeners] = await Promise.all([
      this.receivers.forAccount(who.accountId),
      listen('verification.succeeded'),
      listen('payment_request.paid', paying !== undefined),
      listen('payment_request.late_transfer', paying !== undefined),
    ]);
    const held = await store.holdCredit({ id: who.id, accountId: who.accountId, keyId: who.keyId, createdAt: this.now(), instanceId: this.deps.instanceId?.() ?? null });
    // Credits never go below zero, so a refused hold saw a balance of exactly 0.
    if (held.status === 'insufficient') return this.accountError('insufficient_fund', who, { qrcode, slip }, 0);
    if (held.status === 'no_account') return this.accountError('user_not_found', who, { qrcode, slip });

    const asked = performance.now();
    const result = late && 'answered' in late ? late.answered : await askNetwork(this.deps, slipQuery(slip, qrcode, who.requestId));
    const latencyMs = Math.round(performance.now() - started);
    if (trace) Object.assign(trace, { upstream: result.upstream, upstreamMs: Math.round(performance.now() - asked) });

    // A refused bank answer (another slip, broken data) arrives here as a
    // failure like any other: released, recorded, never charged.
    if (!result.ok) {
      const record = this.errorRecord(who, { kind: result.kind, message: result.message, qrcode, slip, upstream: result.upstream, latencyMs });
      const left = await store.releaseHold({ ...record, accountId: who.accountId });
      // A slip its bank may yet show is kept and asked again (domain/rechecks), for a payment request or when asked for.
      const pending = await recheckInstead(store, this.deps.rechecks, late, result.kind, { who, qrcode, slip, paying, checks, at: this.now(), retryAfterMs: result.retryAfterMs }, left);
      return pending ?? failure(result.kind, result.message, left);
    }
    const data = result.slip;
    const receiver = receiverVerdict(receivers, data);
    if (receiver?.policy === 'require' && !receiver.passed) {
      // Free like every refused bank answer (no verified slip to use); the record says whom the bank named.
      const record = this.errorRecord(who, { kind: 'receiver_not_registered', message: receiverRefusal(data), qrcode, slip, upstream: result.upstream, latencyMs });
      return { kind: 'account_error', error: 'receiver_not_registered', slip: data, creditsRemaining: await store.releaseHold({ ...record, accountId: who.accountId }) };
    }
    const plan = paying ? await planPayment(store, { request: paying, slip: data, verificationId: who.id, listeners: { paid: paidListeners, late: lateListeners } }, this.now()) : undefined;
    // A refusal the slip alone decided is kept with the record; a payment to write, by the store that decides it.
    const record = successRecord(who, { qrcode, data, upstream: result.upstream, latencyMs }, this.now());
    if (plan?.refused) record.payment = recordedVerdict(plan.refused);
    // The events are written by the settle itself (the outbox): charged and announced, or neither.
    const lease = listeners.length > 0 || paidListeners.length > 0 || lateListeners.length > 0 ? this.deps.webhooks?.lease?.() : undefined;
    const succeeded = listeners.length > 0 ? outboxRecords(verificationSucceeded(record), who.accountId, listeners) : [];
    const deliveries = leased(plan?.late?.length ? [...succeeded, ...plan.late] : succeeded, lease);
    if (plan?.payment && lease) plan.payment = { ...plan.payment, deliveries: leased(plan.payment.deliveries, lease) };
    const { payment, paidHere } = await settleWithPayment(store, record, deliveries, plan);
    // Only what the settle stored: a request found paid by this slip under another verification wrote no event here.
    const paidDeliveries = paidHere ? (plan?.payment?.deliveries ?? []) : [];
    if (deliveries.length > 0 || paidDeliveries.length > 0) this.deps.webhooks?.written?.([...deliveries, ...paidDeliveries]);
    await this.deps.creditsLow?.afterHold(who.accountId, held.credits);
    // lastUsedAt is an API key's; a LINE channel has none.
    if (who.source !== 'line' && !who.keyId.startsWith('checkout:')) this.touches.touch(who.keyId);
    // Settling only turns the hold into usage: the hold's balance is the one after the charge.
    return verifiedAnswer(this.deps, this.now, who, { data, qrcode, credits: held.credits, payment, receiver }, checks);
  }

  /** The slip sent again for the request it paid: the paying verification's answer, no bank, no credit (verify/replay.ts). */
  private async answerFromRecord(who: KeyedWho, earlier: EarlierAnswer, qrcode: string, checks?: CheckRequest): Promise<VerifyOutcome> {
    const account = await this.liveAccount(who, { qrcode }, { mustPay: false });
    if (!account.ok) return account.refused;
    const { record, verdict } = earlier;
    const receiver = receiverVerdict(await this.receivers.forAccount(who.accountId), record.response);
    return verifiedAnswer(this.deps, this.now, who, { data: record.response, qrcode, credits: account.credits, payment: verdict, receiver }, checks);
  }

  /**
   * The account, read where the contract's error order needs it before any
   * hold (a refused body, a picture, a bad QR): deleted is 1022; with
   * `mustPay`, no credits is 1023 with the balance read (0: credits never go
   * below zero). On the verify path itself the hold decides both atomically.
   */
  private async liveAccount(who: KeyedWho, about: Pick<FailureFacts, 'qrcode'>, { mustPay }: { mustPay: boolean }): Promise<{ ok: true; credits: number } | { ok: false; refused: VerifyOutcome }> {
    const account = await this.deps.store.getAccount(who.accountId);
    if (!account || account.deletedAt) return { ok: false, refused: await this.accountError('user_not_found', who, about) };
    if (mustPay && account.credits <= 0) return { ok: false, refused: await this.accountError('insufficient_fund', who, about, account.credits) };
    return { ok: true, credits: account.credits };
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
}
