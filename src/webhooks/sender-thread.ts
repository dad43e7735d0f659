// The server's webhook sender: one worker thread at the lowest priority
// (sender-worker.ts) does the HTTP work of every delivery, so that work is
// not done on the event loop that answers verifications. The delivery worker
// stays here (claims, signing, recording); only the POST crosses to the thread.
import type { Worker } from 'node:worker_threads';
import type { WebhookAnswer, WebhookPost, WebhookSender } from '../domain/ports/webhook-sender.js';
import { startModuleThread } from '../threads/module-thread.js';
import type { SenderReply, SenderRequest, SenderThreadData } from './sender-worker.js';

export class ThreadWebhookSender implements WebhookSender {
  private worker: Worker | null = null;
  /** Posts sent to the current thread and not yet answered, by id. */
  private readonly pending = new Map<number, (answer: WebhookAnswer) => void>();
  private nextId = 1;
  private closed = false;
  /** Posts of this tick, sent to the thread together at its end. */
  private outbox: SenderRequest[] = [];

  /** What the thread's httpWebhookSender is made with (guard: what it never connects to, self-guard.ts). */
  constructor(private readonly data: SenderThreadData) {}

  /** The running thread, null before the first post or after it stopped (tests look at it). */
  get thread(): Worker | null {
    return this.worker;
  }

  /** Never rejects: a thread that stops fails its pending posts, recorded and retried like any failed attempt. */
  post(request: WebhookPost): Promise<WebhookAnswer> {
    if (this.closed) return Promise.resolve({ statusCode: null, error: 'webhook sender closed' });
    // Started on the first post: a server with no endpoints pays nothing.
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve) => {
      // Only while posts are pending, as a socket would: an idle thread never keeps the process alive.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, resolve);
      // The worker posts a claimed batch in one go: one message (one wake-up of the thread) for all of it.
      if (this.outbox.length === 0) queueMicrotask(() => this.flush());
      this.outbox.push({ id, request });
    });
  }

  /** After the delivery worker stopped (its attempts answered): ends the thread. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    this.stopped(worker, 'closed');
    await worker.terminate();
  }

  private flush(): void {
    if (this.outbox.length === 0) return;
    const batch = this.outbox;
    this.outbox = [];
    // To the thread running now: one that stopped failed its posts and emptied the outbox (stopped()).
    this.worker?.postMessage(batch);
  }

  private start(): Worker {
    const worker = startModuleThread(import.meta.url, 'sender-worker', { workerData: this.data });
    worker.unref();
    worker.on('message', (replies: SenderReply[]) => {
      for (const reply of replies) this.answered(worker, reply);
    });
    worker.on('error', (err) => this.stopped(worker, err.message));
    worker.on('exit', (code) => this.stopped(worker, `exited with code ${code}`));
    this.worker = worker;
    return worker;
  }

  private answered(worker: Worker, { id, answer }: SenderReply): void {
    const resolve = this.pending.get(id);
    if (!resolve) return;
    this.pending.delete(id);
    if (this.pending.size === 0) worker.unref();
    resolve(answer);
  }

  /** Every pending post fails (the worker retries it later); the next post starts a new thread. */
  private stopped(worker: Worker, why: string): void {
    if (this.worker !== worker) return;
    this.worker = null;
    const error = `webhook sender thread stopped: ${why}`;
    for (const resolve of this.pending.values()) resolve({ statusCode: null, error });
    this.pending.clear();
    this.outbox = [];
    worker.unref();
  }
}
