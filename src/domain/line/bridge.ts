// The LINE bridge: a webhook request of a connected channel is checked
// (signature over the raw bytes, before anything is parsed), answered at
// once, and its events worked off after: each taken once (redeliveries are
// ignored, across restarts), each customer limited, each slip verified as a
// picture verification of the channel's account and answered in the chat.
import type { LineApi } from '../ports/line-api.js';
import type { ChangeLog, Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import type { SecretBox } from '../secret-box.js';
import type { ChannelVerifyInput, VerifyOutcome } from '../verify/types.js';
import { chatAnswer, paymentChooser } from './chat-answer.js';
import { earlierSlip, pendingSlip, resentReply } from './earlier-slip.js';
import type { LineEvent, LineMessage } from './events.js';
import { slipInPicture, slipInText, type FoundSlip, type PictureReader } from './message-slip.js';
import type { PaymentRequestMatcher } from './payment-match.js';
import { staffNoteText, type StaffCase } from './staff-notes.js';
import { replyText, type LineReply } from './replies.js';
import { signatureBytes, signatureMatches } from './signature.js';
import type { LineChannel } from './types.js';
import type { LineUserLimit } from './user-limit.js';
import { WebhookRefusalLog, type RefusedWebhook, type WebhookRefusal } from './refusal-log.js';

export interface LineBridgeDeps {
  store: Store;
  secrets: SecretBox;
  api: LineApi;
  verification: { verifyForChannel(input: ChannelVerifyInput): Promise<VerifyOutcome> };
  /** The verify route's picture reader (pool and per-account cap): a picture is read before anything else happens to it. */
  pictures: PictureReader;
  /** The verify route's image limit: a picture from LINE gets no more. */
  maxImageBytes: number;
  userLimit: LineUserLimit;
  logger: Logger & ChangeLog;
  /** Counts each event by outcome (metrics). */
  onEvent?: (outcome: string) => void;
  /** Chooses the pending request a slip pays on channels that match payment requests. */
  paymentRequests?: PaymentRequestMatcher;
  /** Where the slips that need a person are told (batched pushes to the channel's staff targets). */
  staff?: { note(channel: LineChannel, text: string): void };
  now?: () => Date;
}

export type WebhookCheck = { ok: true; channel: LineChannel } | { ok: false; refused: WebhookRefusal };

/** `quiet`: a message that carries no slip, on a channel without hints: no bot message. */
type EventOutcome = LineReply['kind'] | 'quiet' | 'joined' | 'left' | 'redelivery' | 'ignored' | 'rate_limited_quiet' | 'error';

/** What a message gets: a reply, or nothing but the hint (a picture without a slip QR, a picture too large to be a slip). */
type Answer = LineReply | { kind: 'not_a_slip' };

/** LINE redelivers an event for a day at most; a week of claims is plenty. */
const KEEP_EVENT_CLAIMS_MS = 7 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

export class LineBridge {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly now: () => Date;
  private lastPrune = 0;
  private readonly refusals: WebhookRefusalLog;

  constructor(private readonly deps: LineBridgeDeps) {
    this.now = deps.now ?? (() => new Date());
    this.refusals = new WebhookRefusalLog(deps.logger, () => this.now().getTime());
  }

  /**
   * A missing or malformed signature is refused before the channel is looked
   * up, so a caller without one learns nothing about which channels exist.
   */
  async check(channelId: string, signatureHeader: string | string[] | undefined, raw: Buffer): Promise<WebhookCheck> {
    const signature = signatureBytes(signatureHeader);
    if (!signature) return { ok: false, refused: 'unsigned' };
    const channel = await this.deps.store.getLineChannel(channelId);
    if (!channel) return { ok: false, refused: 'unknown_channel' };
    if (!signatureMatches(this.deps.secrets.open(channel.sealedSecret), raw, signature)) return { ok: false, refused: 'bad_signature' };
    return { ok: true, channel };
  }

  /** A refused webhook request, logged at most once a minute per address (refusal-log.ts). */
  refused(refusal: RefusedWebhook): void {
    this.refusals.refused(refusal);
  }

  /** Works the events off after LINE was answered; drain() waits for them. */
  accept(channel: LineChannel, events: readonly LineEvent[]): void {
    for (const event of events) {
      const work = this.handle(channel, event);
      this.inFlight.add(work);
      void work.finally(() => this.inFlight.delete(work));
    }
  }

  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async handle(channel: LineChannel, event: LineEvent): Promise<void> {
    let outcome: EventOutcome = 'error';
    try {
      outcome = await this.work(channel, event);
    } catch (err) {
      this.deps.logger.error({ err, channelId: channel.channelId, eventId: event.webhookEventId }, 'LINE event failed inside slipgate');
    }
    this.deps.onEvent?.(outcome);
    // No LINE user id here: the log is not covered by retention and erasure.
    this.deps.logger.info({ channelId: channel.channelId, accountId: channel.accountId, eventId: event.webhookEventId, type: event.message?.type ?? event.type, outcome }, 'LINE event');
  }

  private async work(channel: LineChannel, event: LineEvent): Promise<EventOutcome> {
    const taken = await this.deps.store.claimLineEvent({ channelId: channel.channelId, eventId: event.webhookEventId, at: this.now() });
    if (!taken) return 'redelivery';
    this.pruneOldClaims();
    if (event.group) {
      // The groups staff may pick as targets (`slipgate line groups`).
      const present = event.type === 'join';
      await this.deps.store.recordLineGroup({ channelId: channel.channelId, groupId: event.group.id, kind: event.group.kind, at: this.now(), present });
      return present ? 'joined' : 'left';
    }
    const message = event.message;
    if (!message) return 'ignored';
    const token = this.deps.secrets.open(channel.sealedToken);
    // Chat that is not a slip costs nothing: no limit taken, nothing recorded, no answer unless the channel wants the hint.
    const text = message.type === 'text' ? slipInText(message.text) : null;
    if (message.type === 'other' || (text && !text.ok)) return this.notASlip(channel, token, event, 'hint');
    const limit = this.deps.userLimit.take(`${channel.channelId}:${event.userId}`);
    if (limit === 'refused_quiet') return 'rate_limited_quiet';
    const answer: Answer = limit === 'refused_tell' ? { kind: 'rate_limited' } : await this.answer(channel, token, event, text).catch(async (err: unknown) => {
      this.deps.logger.error({ err, channelId: channel.channelId, eventId: event.webhookEventId }, 'LINE slip could not be checked');
      return { kind: 'try_later' } as const;
    });
    if (answer.kind === 'not_a_slip') return this.notASlip(channel, token, event, 'unreadable');
    await this.send(token, event, replyText(answer, channel.lang));
    return answer.kind;
  }

  /** Quiet by default; the hint (or "send a clearer picture") when the channel turned hints on. */
  private async notASlip(channel: LineChannel, token: string, event: LineEvent, hint: 'hint' | 'unreadable'): Promise<EventOutcome> {
    if (!channel.hints) return 'quiet';
    await this.send(token, event, replyText({ kind: hint }, channel.lang));
    return hint;
  }

  private async answer(channel: LineChannel, token: string, event: LineEvent, text: FoundSlip | null): Promise<Answer> {
    if (text?.ok) return this.slip(channel, token, event, text);
    const message = event.message as Extract<LineMessage, { type: 'image' }>;
    if (!message.fromLine) return { kind: 'picture_unavailable' };
    const content = await this.deps.api.content(token, message.id, this.deps.maxImageBytes);
    // A picture over the verify route's limit is no slip screenshot: a photo, most likely.
    if (!content.ok) return content.problem === 'too_large' ? { kind: 'not_a_slip' } : { kind: 'picture_unavailable' };
    const found = await slipInPicture(this.deps.pictures, channel.accountId, content.bytes);
    if (found.ok) return this.slip(channel, token, event, found);
    return 'busy' in found ? { kind: 'try_later' } : { kind: 'not_a_slip' };
  }

  /**
   * A message that carries a slip: answered from the record when the
   * account verified it before, or from its open re-check while the bank
   * does not know it yet (no second bank call, re-check or push); else verified.
   */
  private async slip(channel: LineChannel, token: string, event: LineEvent, found: Extract<FoundSlip, { ok: true }>): Promise<LineReply> {
    this.loading(token, event);
    const earlier = await earlierSlip(this.deps.store, channel, event.userId, found.slip);
    if (earlier?.kind === 'own') return resentReply(this.deps.store, earlier.record);
    if (earlier?.kind === 'other') {
      this.tellStaff(channel, { kind: 'sent_before', slip: earlier.record.response, ref: found.slip });
      return { kind: 'sent_before' };
    }
    const pending = await pendingSlip(this.deps.store, channel, event.userId, found.slip);
    if (pending?.kind === 'own') return { kind: 'still_checking' };
    if (pending?.kind === 'other') {
      // Not confirmed by the bank yet: the staff hear of it without the slip's amount or time.
      this.tellStaff(channel, { kind: 'sent_before', ref: found.slip });
      return { kind: 'sent_before' };
    }
    return this.verify(channel, event, found);
  }

  private async verify(channel: LineChannel, event: LineEvent, { qrcode, slip }: Extract<FoundSlip, { ok: true }>): Promise<LineReply> {
    const chooser = paymentChooser(channel, this.deps.paymentRequests);
    const outcome = await this.deps.verification.verifyForChannel({
      accountId: channel.accountId,
      keyId: `line:${channel.channelId}`,
      lineUserId: event.userId,
      requestId: event.webhookEventId,
      slip: { qrcode },
      ...(channel.checks ? { checks: { duplicate: true } } : {}),
      ...(chooser ? { paymentRequestFor: chooser.choose } : {}),
      // A slip its bank does not know yet is kept, and its result pushed to this customer (recheck-chat.ts).
      recheckChannelId: channel.channelId,
    });
    if (outcome.kind === 'account_error' && outcome.error !== 'receiver_not_registered') {
      this.deps.logger.warn({ channelId: channel.channelId, accountId: channel.accountId, error: outcome.error }, 'LINE slip not checked: the account cannot pay for verifications');
    }
    const { reply, staff } = chatAnswer(channel, outcome, chooser, slip);
    if (staff) this.tellStaff(channel, staff);
    return reply;
  }

  private tellStaff(channel: LineChannel, c: StaffCase): void {
    this.deps.staff?.note(channel, staffNoteText(c, channel.lang));
  }

  /** At most hourly per process, in the background; every instance doing it is harmless. */
  private pruneOldClaims(): void {
    const now = this.now().getTime();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    this.deps.store.pruneLineEvents(new Date(now - KEEP_EVENT_CLAIMS_MS)).catch((err: unknown) => this.deps.logger.warn({ err }, 'old LINE event claims could not be pruned; tried again in an hour'));
  }

  private loading(token: string, event: LineEvent): void {
    // Only one-to-one chats have the animation; it is a courtesy, never awaited.
    if (event.oneToOne) void this.deps.api.startLoading(token, event.userId);
  }

  /** The reply token when there is one and it still works; a push otherwise. */
  private async send(token: string, event: LineEvent, text: string): Promise<void> {
    const replied = event.replyToken ? await this.deps.api.reply(token, event.replyToken, text) : 'invalid_token';
    if (replied === 'sent') return;
    const pushed = replied === 'invalid_token' ? await this.deps.api.push(token, event.chatId, text) : replied;
    if (pushed !== 'sent') this.deps.logger.warn({ eventId: event.webhookEventId, reply: replied, push: pushed }, 'LINE answer could not be delivered');
  }
}
