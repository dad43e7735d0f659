// Slip images are read off the event loop: a fixed set of worker threads,
// a bounded queue in front of them and a time budget per image. A flood of
// images then costs at most the pool's share of the CPU, and plain qrcode
// verifications keep the event loop to themselves.
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { startModuleThread } from '../threads/module-thread.js';
import type { DecodeReply, DecodeRequest } from './decode-messages.js';

export interface ImagePoolOptions {
  /** Decoder threads; default one per core. */
  workers?: number;
  /** Images waiting for a thread; one more is refused as busy. */
  queueMax: number;
  /** Budget of one image once a thread has it; past it the thread is replaced. */
  timeoutMs: number;
  /** Width × height limit, checked before any pixel is decompressed. */
  maxPixels: number;
  logger?: Logger;
}

import type { ImageDecodeResult } from '../domain/ports/images.js';

export interface ImagePoolStats {
  /** Images handed to a thread (the cost counter: refused or queued images are not in it). */
  decodes: number;
  busy: number;
  timeouts: number;
  /** Threads started, replacements included. */
  threadsStarted: number;
  running: number;
  queued: number;
}

/** Loading a thread (sharp, the decoder) is not the image's fault: its budget starts once loaded. */
const STARTUP_ALLOWANCE_MS = 30_000;

interface Job {
  id: number;
  bytes: ArrayBuffer;
  resolve(result: ImageDecodeResult): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  /** Loaded: a job given before this waits for it, and so does its clock. */
  ready: boolean;
  job: Job | null;
  timer?: NodeJS.Timeout;
}

export class ImageDecodePool {
  readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private readonly counters = { decodes: 0, busy: 0, timeouts: 0, threadsStarted: 0 };

  constructor(private readonly opts: ImagePoolOptions) {
    this.size = Math.max(1, opts.workers ?? availableParallelism());
  }

  get stats(): ImagePoolStats {
    return { ...this.counters, running: this.slots.filter((s) => s.job).length, queued: this.queue.length };
  }

  /** Never throws for a bad image (that is a result); rejects only when a thread dies or the pool is closed. */
  decode(image: Uint8Array): Promise<ImageDecodeResult> {
    if (this.closed) return Promise.reject(new Error('the image decoder is closed'));
    const slot = this.idleSlot();
    if (!slot && this.queue.length >= this.opts.queueMax) {
      this.counters.busy++;
      return Promise.resolve({ kind: 'busy' });
    }
    const bytes = ownsItsMemory(image) ? image.buffer : (image.buffer.slice(image.byteOffset, image.byteOffset + image.byteLength) as ArrayBuffer);
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.nextId++, bytes, resolve, reject };
      if (slot) this.start(slot, job);
      else this.queue.push(job);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('the image decoder is closed'));
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      clearTimeout(slot.timer);
      slot.job?.reject(new Error('the image decoder is closed'));
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private idleSlot(): Slot | null {
    const idle = this.slots.find((s) => !s.job);
    if (idle) return idle;
    return this.slots.length < this.size ? this.spawn() : null;
  }

  private spawn(): Slot {
    const worker = startModuleThread(import.meta.url, 'decode-worker');
    const slot: Slot = { worker, ready: false, job: null };
    this.counters.threadsStarted++;
    worker.on('message', (reply: DecodeReply) => this.finished(slot, reply));
    worker.on('error', (err) => this.lost(slot, err));
    worker.on('exit', (code) => this.lost(slot, new Error(`image decoder thread exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    this.counters.decodes++;
    slot.worker.ref();
    if (slot.ready) return this.send(slot, job);
    // A thread that never finishes loading must not hold its image forever.
    slot.timer = setTimeout(() => this.timedOut(slot), this.opts.timeoutMs + STARTUP_ALLOWANCE_MS);
  }

  private send(slot: Slot, job: Job): void {
    clearTimeout(slot.timer);
    slot.timer = setTimeout(() => this.timedOut(slot), this.opts.timeoutMs);
    const request: DecodeRequest = { id: job.id, bytes: job.bytes, maxPixels: this.opts.maxPixels };
    slot.worker.postMessage(request, [job.bytes]);
  }

  private finished(slot: Slot, reply: DecodeReply): void {
    if ('ready' in reply) {
      slot.ready = true;
      if (slot.job) this.send(slot, slot.job);
      return;
    }
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    this.release(slot);
    if (reply.ok) job.resolve(reply.qrcode === null ? { kind: 'no_qr' } : { kind: 'qrcode', qrcode: reply.qrcode });
    else if (reply.reason === 'failed') job.reject(new Error(`image decoder failed: ${reply.message}`));
    else job.resolve({ kind: reply.reason, message: reply.message });
    this.next(slot);
  }

  private release(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.job = null;
    // An idle pool must not keep a process alive on its own.
    slot.worker.unref();
  }

  private next(slot: Slot): void {
    const job = this.queue.shift();
    if (job) this.start(slot, job);
  }

  /** A thread stuck on one image cannot be interrupted, only replaced. */
  private timedOut(slot: Slot): void {
    const job = slot.job;
    if (!job || !this.remove(slot)) return;
    this.counters.timeouts++;
    this.opts.logger?.warn({ timeoutMs: this.opts.timeoutMs }, 'image decode took too long; its thread is replaced');
    void slot.worker.terminate();
    job.resolve({ kind: 'timeout' });
    this.refill();
  }

  private lost(slot: Slot, err: Error): void {
    if (!this.remove(slot)) return;
    this.opts.logger?.error({ err }, 'image decoder thread died');
    slot.job?.reject(err);
    void slot.worker.terminate();
    this.refill();
  }

  private remove(slot: Slot): boolean {
    const at = this.slots.indexOf(slot);
    if (at < 0) return false;
    this.slots.splice(at, 1);
    clearTimeout(slot.timer);
    return true;
  }

  /** Queued images get the replacement thread. */
  private refill(): void {
    if (this.closed) return;
    while (this.queue.length > 0 && this.slots.length < this.size) this.next(this.spawn());
  }
}

/**
 * An image that is the whole of its ArrayBuffer (a body read whole, a
 * decoded upload or download) is moved to the decoder thread, not copied;
 * the caller's buffer is then empty (ImageDecoder says so). Measured on a
 * 2 MB camera photo sent one at a time: 56 ms of CPU against 65 ms with the
 * copy, most of it not the copy itself but the full garbage collections V8
 * ran for the extra megabytes outside its heap. A view into a larger buffer
 * (Node's shared pool of small buffers, a part of a form) is copied: moving
 * it would empty its neighbours.
 */
function ownsItsMemory(image: Uint8Array): image is Uint8Array & { buffer: ArrayBuffer } {
  return image.buffer instanceof ArrayBuffer && image.byteOffset === 0 && image.byteLength === image.buffer.byteLength;
}
