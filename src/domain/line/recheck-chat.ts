// The LINE side of re-checks (docs/line.md#a-bank-that-publishes-late): a
// slip sent in a chat that its bank did not know yet was answered "we will
// tell you in a few minutes" and kept (domain/rechecks). Here each of its
// attempts gets the channel's chooser of the order it pays, so a confirmed
// slip is matched by the chat's own rules at confirmation, and its end is
// pushed to the customer who sent it: the reply a direct verify would have
// had, or that the bank still has no record (the staff told too). A push
// costs the shop one message of LINE's free quota (a reply is free).
//
// Told at most once: the push follows the re-check's finish (worker.ts). A
// crash between the two loses the push, never a charge; the customer who
// sends the slip again is answered from the record, free (earlier-slip.ts).
// Sending it before the finish would instead risk telling twice, or telling
// a result the finish then did not write.
import type { LineApi } from '../ports/line-api.js';
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import type { FollowedAttempt, RecheckFollowUp } from '../rechecks/worker.js';
import type { Recheck, RecheckOutcome } from '../rechecks/types.js';
import type { SlipRef } from '../verify/slip-qr.js';
import type { VerifyOutcome } from '../verify/types.js';
import { chatAnswer, paymentChooser, type PaymentChooser } from './chat-answer.js';
import { earlierSlip, resentReply, type EarlierSlip } from './earlier-slip.js';
import type { PaymentRequestMatcher } from './payment-match.js';
import { replyText, type LineReply } from './replies.js';
import { staffNoteText, type StaffCase } from './staff-notes.js';
import type { LineChannel } from './types.js';

export interface LineRecheckChatDeps {
  store: Store;
  /** Opens the channel's sealed access token (SECRETS_KEY). */
  secrets: { open(sealed: string): string };
  api: Pick<LineApi, 'push'>;
  /** The staff notifier (batched pushes to the channel's staff targets). */
  staff?: { note(channel: LineChannel, text: string): void };
  paymentRequests?: PaymentRequestMatcher;
  logger: Logger;
}

export class LineRecheckChat implements RecheckFollowUp {
  constructor(private readonly deps: LineRecheckChatDeps) {}

  async attempt(r: Recheck): Promise<FollowedAttempt | undefined> {
    if (!r.lineChannelId || !r.lineUserId) return undefined;
    const channel = await this.deps.store.getLineChannel(r.lineChannelId);
    // Disconnected, or connected to another account since: still re-checked for its account, no one in a chat told.
    if (!channel || channel.accountId !== r.accountId) return undefined;
    const ref: SlipRef = { sendingBank: r.sendingBank, transRef: r.transRef };
    // Sent again and verified meanwhile (by this customer, or anyone): the strict re-send rule of the chat holds here too.
    const earlier = await earlierSlip(this.deps.store, channel, r.lineUserId, ref);
    const chooser = paymentChooser(channel, this.deps.paymentRequests);
    const told: Told = { channel, userId: r.lineUserId, ref, chooser, earlier };
    return {
      ...(chooser ? { paying: chooser.choose } : {}),
      verifiedMeanwhile: earlier !== null,
      finished: (outcome, answer, result) => this.finished(told, outcome, answer, result),
    };
  }

  private async finished(told: Told, outcome: RecheckOutcome, answer: VerifyOutcome | undefined, result: Record<string, unknown> | undefined): Promise<void> {
    try {
      const said = await this.said(told, outcome, answer, result);
      if (said?.staff) this.deps.staff?.note(told.channel, staffNoteText(said.staff, told.channel.lang));
      if (said?.reply) await this.push(told, said.reply);
    } catch (err) {
      this.deps.logger.warn({ err, channelId: told.channel.channelId, outcome }, 'LINE re-check result could not be told');
    }
  }

  /** What the customer is pushed and the staff told; nothing when the chat heard it already. */
  private async said(told: Told, outcome: RecheckOutcome, answer: VerifyOutcome | undefined, result: Record<string, unknown> | undefined): Promise<Said | null> {
    const { channel, ref, chooser, earlier } = told;
    switch (outcome) {
      case 'verified': {
        if (answer) return chatAnswer(channel, answer, chooser, ref);
        // Finished by a later pass after a crash: its answer is the record's.
        const record = await recordOf(this.deps.store, channel, told, String(result?.verificationId ?? ''));
        return record ? { reply: record, staff: null } : null;
      }
      case 'refused': {
        // The receiver policy refused it: said as a direct verify would; an account gone says nothing.
        const said = answer ? chatAnswer(channel, answer, chooser, ref) : null;
        return said?.reply.kind === 'other_receiver' ? said : null;
      }
      case 'superseded':
        // Verified meanwhile: for this customer, they read that answer already; for anyone else, "sent before".
        return earlier?.kind === 'other' ? { reply: { kind: 'sent_before' }, staff: { kind: 'sent_before', slip: earlier.record.response, ref } } : null;
      case 'unconfirmed':
        return { reply: { kind: 'unconfirmed' }, staff: { kind: 'unpublished', ref } };
      case 'no_credit':
        // The bank confirmed it, but the shop had no credit left: the slip was not checked for the shop.
        return { reply: { kind: 'try_later' }, staff: null };
    }
  }

  private async push(told: Told, reply: LineReply): Promise<void> {
    const { channel } = told;
    const sent = await this.deps.api.push(this.deps.secrets.open(channel.sealedToken), told.userId, replyText(reply, channel.lang));
    // No LINE user id in the log: it is not covered by retention and erasure.
    if (sent !== 'sent') this.deps.logger.warn({ channelId: channel.channelId, push: sent, reply: reply.kind }, 'LINE re-check result could not be pushed');
  }
}

interface Told {
  channel: LineChannel;
  userId: string;
  ref: SlipRef;
  chooser: PaymentChooser | null;
  earlier: EarlierSlip | null;
}

type Said = { reply: LineReply | null; staff: StaffCase | null };

/** The success reply of the verification recorded under `id` (its order named when it paid one), as first told. */
async function recordOf(store: Store, channel: LineChannel, told: Told, id: string): Promise<LineReply | null> {
  const page = await store.listVerifyTransactions({ accountId: channel.accountId, transactionId: told.ref.transRef, sendingBank: told.ref.sendingBank, limit: 50 });
  const record = page.items.find((r) => r.id === id);
  if (!record || record.redactedAt) return null;
  const { slip, order } = (await resentReply(store, record)) as Extract<LineReply, { kind: 'resent' }>;
  return { kind: 'verified', slip, ...(order ? { order } : {}) };
}
