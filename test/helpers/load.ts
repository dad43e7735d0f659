// Steady load for fault tests: a few workers post verifications back to back
// until stopped, and every answer (or the lack of one) is recorded with the
// phase of the scenario it was sent in.
import { VERIFY_PATH } from '../../src/http/public-app.js';

export interface Answer {
  phase: string;
  /** Null when no HTTP answer came (connection error or client deadline). */
  status: number | null;
  body: any;
  /** Why there is no well-formed answer: network error, deadline, non-JSON body. */
  problem?: string;
}

export interface LoadOptions {
  publicUrl: string;
  apiKey: string;
  qrcode: () => string;
  workers: number;
  /** A request still unanswered after this long counts as not answered. */
  deadlineMs: number;
}

export interface Load {
  answers: Answer[];
  phase: string;
  /** Answers with this phase so far. */
  inPhase(phase: string): Answer[];
  stop(): Promise<Answer[]>;
}

export function startLoad(opts: LoadOptions): Load {
  let running = true;
  const load: Load = {
    answers: [],
    phase: 'start',
    inPhase: (phase) => load.answers.filter((a) => a.phase === phase),
    async stop() {
      running = false;
      await Promise.all(workers);
      return load.answers;
    },
  };
  const worker = async () => {
    while (running) load.answers.push(await postOnce(opts, load.phase));
  };
  const workers = Array.from({ length: opts.workers }, worker);
  return load;
}

async function postOnce(opts: LoadOptions, phase: string): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(opts.publicUrl + VERIFY_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': opts.apiKey },
      body: JSON.stringify({ qrcode: opts.qrcode() }),
      signal: AbortSignal.timeout(opts.deadlineMs),
    });
  } catch (err) {
    return { phase, status: null, body: null, problem: `no answer: ${(err as Error).name} ${(err as Error).message}` };
  }
  let text = '';
  try {
    text = await res.text();
    return { phase, status: res.status, body: JSON.parse(text) };
  } catch (err) {
    return { phase, status: res.status, body: text, problem: `unreadable answer: ${(err as Error).message}` };
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the load has seen a success sent in `phase`. */
export async function untilSuccessIn(load: Load, phase: string, timeoutMs = 15_000): Promise<void> {
  await untilAnswersIn(load, phase, 1, (a) => a.body?.status === 'success', timeoutMs);
}

/**
 * Waits until `count` answers to requests sent in `phase` (matching `match`)
 * have come back: a phase lasts until callers have really met it, however
 * slow the machine is, instead of for a fixed time.
 */
export async function untilAnswersIn(load: Load, phase: string, count: number, match: (a: Answer) => boolean = () => true, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (load.inPhase(phase).filter(match).length < count) {
    if (Date.now() > until) throw new Error(`fewer than ${count} matching answers in phase "${phase}" within ${timeoutMs} ms`);
    await pause(50);
  }
}
