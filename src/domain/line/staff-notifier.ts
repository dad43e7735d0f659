// Staff are pushed the slips that need a person (docs/line.md#staff-notifications).
// A push to a group counts once per member against the channel's monthly
// quota, so notes are collected per channel for LINE_STAFF_BATCH_MS and sent
// as one message to each staff target. The batch lives in this process: a
// shutdown sends what is waiting (drain), a crash loses at most one batch
// window of notes (the slips themselves are recorded as always).
import type { LineApi } from '../ports/line-api.js';
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import type { SecretBox } from '../secret-box.js';
import type { LineChannel } from './types.js';

export interface StaffNotifierDeps {
  store: Store;
  secrets: SecretBox;
  api: LineApi;
  logger: Logger;
  /** How long notes of one channel are collected before they are pushed. */
  batchMs: number;
}

/** LINE's longest text message. */
const MAX_TEXT = 5000;
/** Notes kept per channel in one batch window; older ones give way (a flood still makes one message). */
const MAX_WAITING = 200;

interface Batch {
  channel: LineChannel;
  notes: string[];
  dropped: number;
  timer: NodeJS.Timeout | null;
}

export class LineStaffNotifier {
  private readonly batches = new Map<string, Batch>();
  private readonly sending = new Set<Promise<void>>();

  constructor(private readonly deps: StaffNotifierDeps) {}

  /** Queues a note for the channel's staff; pushed with the others of its batch. */
  note(channel: LineChannel, text: string): void {
    let batch = this.batches.get(channel.channelId);
    if (!batch) {
      batch = { channel, notes: [], dropped: 0, timer: null };
      this.batches.set(channel.channelId, batch);
    }
    batch.channel = channel;
    batch.notes.push(text);
    if (batch.notes.length > MAX_WAITING) batch.dropped += batch.notes.splice(0, batch.notes.length - MAX_WAITING).length;
    if (!batch.timer) {
      batch.timer = setTimeout(() => this.track(this.flush(channel.channelId)), this.deps.batchMs);
      batch.timer.unref();
    }
  }

  /** Sends every waiting batch now and waits for the pushes (shutdown). */
  async drain(): Promise<void> {
    for (const [channelId, batch] of this.batches) {
      if (batch.timer) clearTimeout(batch.timer);
      this.track(this.flush(channelId));
    }
    while (this.sending.size > 0) await Promise.allSettled([...this.sending]);
  }

  private track(work: Promise<void>): void {
    this.sending.add(work);
    void work.finally(() => this.sending.delete(work));
  }

  private async flush(channelId: string): Promise<void> {
    const batch = this.batches.get(channelId);
    if (!batch) return;
    this.batches.delete(channelId);
    const { channel, notes, dropped } = batch;
    if (notes.length === 0) return;
    try {
      const targets = await this.deps.store.listLineStaffTargets(channelId);
      if (targets.length === 0) return;
      const text = staffMessage(notes, dropped, channel.lang);
      const token = this.deps.secrets.open(channel.sealedToken);
      const results = await Promise.all(targets.map((t) => this.deps.api.push(token, t.targetId, text)));
      const failed = results.filter((r) => r !== 'sent').length;
      if (failed > 0) this.deps.logger.warn({ channelId, targets: targets.length, failed, notes: notes.length }, 'LINE staff notes could not be pushed to every target');
    } catch (err) {
      this.deps.logger.warn({ err, channelId, notes: notes.length }, 'LINE staff notes could not be sent');
    }
  }
}

/** One text: a heading, the notes as paragraphs, cut to LINE's limit. */
function staffMessage(notes: readonly string[], dropped: number, lang: LineChannel['lang']): string {
  const th = lang === 'th';
  const heading = th ? `🔔 สลิปที่ต้องให้ร้านตรวจสอบ (${notes.length + dropped})` : `🔔 Slips that need a person (${notes.length + dropped})`;
  const lines = [heading, ...(dropped > 0 ? [th ? `(${dropped} รายการก่อนหน้าไม่ได้แสดง)` : `(${dropped} earlier notes left out)`] : [])];
  let text = lines.join('\n');
  for (const [i, note] of notes.entries()) {
    const next = `${text}\n\n${note}`;
    if (next.length > MAX_TEXT - 40) {
      const rest = notes.length - i;
      return `${text}\n\n${th ? `…และอีก ${rest} รายการ` : `…and ${rest} more`}`;
    }
    text = next;
  }
  return text;
}
