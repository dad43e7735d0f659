// Scenario L's two ways in for the same slip pictures: `POST /api/v1/verify`
// with `{"image": base64}`, and a LINE image message sent through the LINE
// platform simulator (`slipgate simulate-line`), whose answer is the reply
// the simulator records in the chat. Both keep a fixed number of pictures in
// flight (closed loop) and count only pictures that end verified. Through
// LINE each message carries a slip of its own (fresh-slips.ts): a slip the
// account verified before is answered "sent before" there, whoever sends it.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import type { FreshSlipPictures } from './fresh-slips.js';
import { phoneScreenshot } from './images.js';

export interface PathResult {
  sent: number;
  verified: number;
  /** Answered, but not verified (any other answer or reply). */
  notVerified: number;
  /** No answer at all: a socket error, or no reply in the chat within the reply timeout. */
  noAnswer: number;
  /** From the first picture sent to the last answer. */
  seconds: number;
  /** Per verified picture: request to answer, or LINE event sent to reply recorded. */
  latencyMs: { p50: number; p99: number };
  /** A few distinct answers that were not a verification, to say what went wrong. */
  samples: string[];
}

export interface PictureLoad {
  /** The pictures sent in turn (the verify route, asked for no checks, verifies a repeat), or a fresh slip's for each. */
  pictures: Buffer[] | FreshSlipPictures;
  /** Pictures in flight at once. */
  concurrency: number;
  /** Senders stop starting pictures after this long (the answers still in flight are waited for). */
  durationSec: number;
  /** Stop after this many pictures sent, whatever the time (tests). */
  maxPictures?: number;
}

/** What the bench's LINE channel answers a verified slip with (it is connected with lang `en`). */
export const VERIFIED_REPLY = '✅ Slip verified: the transfer is real.';
/** No reply in the chat this long after the event: counted as no answer. */
const REPLY_TIMEOUT_MS = 30_000;
/** How often the chat log is read while replies are awaited. */
const POLL_MS = 20;

/** The set both paths send, in the same order: `count` 1080×2340 phone screenshots of distinct sandbox slips. */
export async function benchPictures(count: number): Promise<Buffer[]> {
  const pictures: Buffer[] = [];
  for (let i = 0; i < count; i++) pictures.push(await phoneScreenshot(sandboxQr({ amount: 100 + i * 37.25 })));
  return pictures;
}

/** (a) The pictures as `POST /api/v1/verify` with `image`, on the channel's account's API key. */
export async function verifyPictures(url: string, apiKey: string, load: PictureLoad): Promise<PathResult> {
  const bodies = Array.isArray(load.pictures) ? load.pictures.map((p) => JSON.stringify({ image: p.toString('base64') })) : null;
  return closedLoop(load, async (index) => {
    const body = bodies ? bodies[index % bodies.length]! : JSON.stringify({ image: (await pictureAt(load, index)).toString('base64') });
    const res = await fetch(`${url}/api/v1/verify`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body });
    const text = await res.text();
    return { answer: text.startsWith('{"status":"success"') ? 'verified' : text.slice(0, 160) };
  });
}

/**
 * (b) The pictures as LINE image messages: each from a customer of its own
 * (LINE_EVENTS_PER_USER_PER_MIN holds per user), sent with the simulator's
 * POST /sim/send-image, answered when the chat log holds a reply (or push)
 * to that customer. One reader of the log serves every picture in flight.
 */
export async function linePictures(simUrl: string, load: PictureLoad): Promise<PathResult> {
  const waiting = new Map<string, (reply: ChatReply) => void>();
  let seen = 0;
  let done = false;
  let readerFailure: string | undefined;
  const reader = (async () => {
    while (!done || waiting.size > 0) {
      await sleep(POLL_MS);
      if (waiting.size === 0) continue;
      const log = (await (await fetch(`${simUrl}/sim/log`)).json()) as { kind: string; to: string | null; text?: string; at: string }[];
      // The log only grows: read each entry once.
      for (const entry of log.slice(seen)) {
        if (entry.kind !== 'loading' && entry.to !== null) waiting.get(entry.to)?.({ text: entry.text ?? '', at: Date.parse(entry.at) });
      }
      seen = log.length;
    }
  })().catch((err: unknown) => {
    // The simulator is gone: every picture still waiting ends as no answer (its timer), and the run says why.
    readerFailure = err instanceof Error ? err.message : String(err);
  });
  try {
    return await closedLoop(load, async (index) => {
      const picture = await pictureAt(load, index);
      const user = `U${randomBytes(16).toString('hex')}`;
      let timer: NodeJS.Timeout | undefined;
      const replied = new Promise<ChatReply | null>((resolve) => {
        timer = setTimeout(() => resolve(null), REPLY_TIMEOUT_MS);
        waiting.set(user, resolve);
      });
      // The simulator stamps a reply with the wall clock when it records it: the event's time is taken on the same clock.
      const sentAt = Date.now();
      try {
        const res = await fetch(`${simUrl}/sim/send-image?user=${user}`, { method: 'POST', body: new Uint8Array(picture) });
        const sent = (await res.json()) as { slipgate?: { status: number; body: string } };
        // slipgate answers LINE 200 at once and works the event off after; anything else means no reply will come.
        if (sent.slipgate?.status !== 200) return { answer: `webhook answered ${sent.slipgate?.status ?? res.status}: ${sent.slipgate?.body ?? ''}`.slice(0, 160) };
        const reply = await replied;
        if (reply === null) return { answer: null };
        return { answer: reply.text.startsWith(VERIFIED_REPLY) ? 'verified' : reply.text.slice(0, 160), latencyMs: reply.at - sentAt };
      } finally {
        clearTimeout(timer);
        waiting.delete(user);
      }
    });
  } finally {
    done = true;
    await reader;
    if (readerFailure) throw new Error(`the simulator's chat log could not be read: ${readerFailure}`);
  }
}

/** The `index`th picture of the load: its set's in turn, or the next fresh slip. */
async function pictureAt(load: PictureLoad, index: number): Promise<Buffer> {
  return Array.isArray(load.pictures) ? load.pictures[index % load.pictures.length]! : load.pictures.next();
}

interface ChatReply {
  text: string;
  /** When the simulator recorded it (ms since the epoch). */
  at: number;
}

/** What became of one picture: 'verified', another answer's text, or null for none; `latencyMs` when the answer's time is known better than on its arrival here. */
interface Attempt {
  answer: string | null;
  latencyMs?: number;
}

/** Runs `load.concurrency` senders of `attempt` (which throws on a socket error) and counts what became of the pictures. */
async function closedLoop(load: PictureLoad, attempt: (index: number) => Promise<Attempt>): Promise<PathResult> {
  const result: PathResult = { sent: 0, verified: 0, notVerified: 0, noAnswer: 0, seconds: 0, latencyMs: { p50: Number.NaN, p99: Number.NaN }, samples: [] };
  const latencies: number[] = [];
  const samples = new Set<string>();
  const started = performance.now();
  const endAt = started + load.durationSec * 1000;
  const more = () => performance.now() < endAt && (load.maxPictures === undefined || result.sent < load.maxPictures);
  const sender = async () => {
    while (more()) {
      const index = result.sent++;
      const at = performance.now();
      const { answer, latencyMs } = await attempt(index).catch((err: unknown): Attempt => {
        samples.add(err instanceof Error ? err.message : String(err));
        return { answer: null };
      });
      if (answer === 'verified') {
        result.verified++;
        latencies.push(latencyMs ?? performance.now() - at);
      } else if (answer === null) result.noAnswer++;
      else {
        result.notVerified++;
        samples.add(answer);
      }
    }
  };
  await Promise.all(Array.from({ length: load.concurrency }, sender));
  result.seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => (latencies.length === 0 ? Number.NaN : latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!);
  result.latencyMs = { p50: at(0.5), p99: at(0.99) };
  result.samples = [...samples].slice(0, 3);
  return result;
}
