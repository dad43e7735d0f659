// The bytes of picture bodies one process holds at once (IMAGE_BYTES_IN_FLIGHT).
// A picture is held several times over while it is read: the body, its JSON
// string and the base64 field, the decoded bytes, the copy handed to a
// decoder thread. 64 camera photos in flight as base64 JSON held ~600 MB
// that way (docs/performance.md#memory). A picture body is read only once
// its bytes fit in the budget; until then its bytes wait in the socket
// (the kernel's buffers, not the heap), and one that has waited too long is
// answered busy without being read. Its bytes count until its answer is sent:
// the request holds them that long. One client address holds at most a share
// of the budget (ADDRESS_SHARE), so that a few stalled uploads from one place
// cannot freeze every account's pictures for REQUEST_TIMEOUT_MS.
import type { Request, Response } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';

/** How long a picture may wait for room before it is answered busy (a slot frees within seconds). */
const MAX_WAIT_MS = 10_000;

/**
 * The part of the budget one client address may hold: a quarter, two of the
 * largest pictures at the defaults (32 MiB, 4 MiB). An address holding nothing
 * may still bring one picture larger than its share, so any picture the size
 * limit lets in can pass.
 */
const ADDRESS_SHARE = 1 / 4;

interface Waiter {
  bytes: number;
  /** Absent: held to the budget alone. */
  address?: string;
  grant(): void;
}

export class PictureBudget {
  private used = 0;
  private readonly waiters: Waiter[] = [];
  /** Bytes held per client address (only addresses holding some). */
  private readonly byAddress = new Map<string, number>();

  constructor(
    /** Bytes of picture bodies held at once. */
    readonly capacity: number,
    private readonly maxWaitMs = MAX_WAIT_MS,
  ) {}

  /**
   * Room for `bytes` (at most the capacity, so that any picture the size
   * limit lets in can pass alone) for a client `address` (held to its
   * share; absent, to the budget alone): a release to call
   * once, or null when it waited longer than the budget allows or `gone`
   * was aborted while it waited (its client hung up: it never holds room).
   */
  async take(bytes: number, address?: string, gone?: AbortSignal): Promise<(() => void) | null> {
    if (gone?.aborted) return null;
    const need = Math.min(Math.max(bytes, 1), this.capacity);
    let granted = false;
    const waiter: Waiter = { bytes: need, address, grant: () => (granted = true) };
    this.waiters.push(waiter);
    this.wake();
    if (granted) return this.release(waiter);
    const outcome = await new Promise<boolean>((resolve) => {
      const stop = () => {
        clearTimeout(timer);
        gone?.removeEventListener('abort', stop);
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        // Those behind it, or its address's next picture, may fit now.
        this.wake();
        resolve(false);
      };
      const timer = setTimeout(stop, this.maxWaitMs);
      gone?.addEventListener('abort', stop, { once: true });
      waiter.grant = () => (clearTimeout(timer), gone?.removeEventListener('abort', stop), resolve(true));
    });
    return outcome ? this.release(waiter) : null;
  }

  /** Bytes of the pictures let in and not answered yet. */
  get held(): number {
    return this.used;
  }

  /** Pictures waiting unread for room (the image pool metric's `waiting`). */
  get waiting(): number {
    return this.waiters.length;
  }

  /** The release of a waiter's bytes already counted as used. */
  private release({ bytes, address }: Waiter): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.used -= bytes;
      if (address !== undefined) {
        const left = (this.byAddress.get(address) ?? 0) - bytes;
        if (left > 0) this.byAddress.set(address, left);
        else this.byAddress.delete(address);
      }
      this.wake();
    };
  }

  /** Whether `waiter`'s address may hold its bytes beside what it holds already. */
  private withinShare({ bytes, address }: Waiter): boolean {
    if (address === undefined) return true;
    const holding = this.byAddress.get(address) ?? 0;
    return holding === 0 || holding + bytes <= this.capacity * ADDRESS_SHARE;
  }

  /**
   * First come, first served among the waiters within their address's share:
   * a small picture does not overtake a larger one that came before it, but
   * an address at its share does not hold up the others.
   */
  private wake(): void {
    for (let i = 0; i < this.waiters.length; ) {
      const next = this.waiters[i]!;
      if (!this.withinShare(next)) {
        i++;
        continue;
      }
      if (this.used + next.bytes > this.capacity) return;
      this.waiters.splice(i, 1);
      this.used += next.bytes;
      if (next.address !== undefined) this.byAddress.set(next.address, (this.byAddress.get(next.address) ?? 0) + next.bytes);
      next.grant();
    }
  }
}

/**
 * Whether a request's body is held against the budget: a picture's bytes
 * (image/*, multipart), a body larger than a QR text's may be (a picture
 * in JSON), or a body of undeclared length (chunked), which may be either
 * and is counted as the largest picture.
 */
export function isPictureSized(req: Request, maxQrcodeBodyBytes: number): boolean {
  if (/^(image\/|multipart\/)/i.test(req.headers['content-type'] ?? '')) return true;
  if (req.headers['content-length'] === undefined) return req.headers['transfer-encoding'] !== undefined;
  const length = Number(req.headers['content-length']);
  return Number.isFinite(length) && length > maxQrcodeBodyBytes;
}

/**
 * Room for the picture body of `req` (the verify route's, a checkout
 * upload's), held until its answer is sent or the connection is gone; false
 * when it waited too long or its client hung up while it waited, and the
 * caller answers busy without reading it. The release is attached before
 * the wait: a connection gone while waiting never holds room.
 */
export async function holdRoomForPicture(budget: PictureBudget, req: Request, res: Response, maxImageBytes: number): Promise<boolean> {
  const gone = new AbortController();
  let release: (() => void) | null = null;
  const end = () => (release ? release() : gone.abort());
  res.once('finish', end);
  res.once('close', end);
  // The address as the app found it: the connection's, or X-Forwarded-For only as far as TRUST_PROXY_HOPS trusts it.
  release = await budget.take(pictureBytes(req, maxImageBytes), clientAddress(req), gone.signal);
  if (release && (res.writableFinished || res.destroyed || res.closed)) release();
  return release !== null;
}

/** IPv6 by its /56, as the per-IP limit counts (one customer's allocation, not one address of billions). */
function clientAddress(req: Request): string | undefined {
  return req.ip === undefined ? undefined : ipKeyGenerator(req.ip);
}

/** The bytes a picture body is counted as: its declared length, else the image limit. */
function pictureBytes(req: Request, maxImageBytes: number): number {
  const length = Number(req.headers['content-length']);
  return Number.isFinite(length) && length > 0 ? Math.min(length, maxImageBytes) : maxImageBytes;
}
