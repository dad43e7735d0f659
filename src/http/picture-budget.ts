// The bytes of picture bodies one process holds at once (IMAGE_BYTES_IN_FLIGHT).
// A picture is held several times over while it is read: the body, its JSON
// string and the base64 field, the decoded bytes, the copy handed to a
// decoder thread. 64 camera photos in flight as base64 JSON held ~600 MB
// that way (docs/performance.md#memory). A picture body is read only once
// its bytes fit in the budget; until then its bytes wait in the socket
// (the kernel's buffers, not the heap), and one that has waited too long is
// answered busy without being read. Its bytes count until its answer is sent:
// the request holds them that long.
import type { Request, Response } from 'express';

/** How long a picture may wait for room before it is answered busy (a slot frees within seconds). */
const MAX_WAIT_MS = 10_000;

interface Waiter {
  bytes: number;
  grant(): void;
}

export class PictureBudget {
  private used = 0;
  private readonly waiters: Waiter[] = [];

  constructor(
    /** Bytes of picture bodies held at once. */
    readonly capacity: number,
    private readonly maxWaitMs = MAX_WAIT_MS,
  ) {}

  /**
   * Room for `bytes` (at most the capacity, so that any picture the size
   * limit lets in can pass alone): a release to call once, or null when it
   * waited longer than the budget allows.
   */
  async take(bytes: number): Promise<(() => void) | null> {
    const need = Math.min(Math.max(bytes, 1), this.capacity);
    // First come, first served: a small picture does not overtake a large one waiting.
    if (this.waiters.length === 0 && this.used + need <= this.capacity) return this.grant(need);
    const granted = await new Promise<boolean>((resolve) => {
      const waiter: Waiter = { bytes: need, grant: () => (clearTimeout(timer), resolve(true)) };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        this.wake();
        resolve(false);
      }, this.maxWaitMs);
      this.waiters.push(waiter);
    });
    return granted ? this.release(need) : null;
  }

  /** Bytes of the pictures let in and not answered yet. */
  get held(): number {
    return this.used;
  }

  /** Pictures waiting unread for room (the image pool metric's `waiting`). */
  get waiting(): number {
    return this.waiters.length;
  }

  private grant(bytes: number): () => void {
    this.used += bytes;
    return this.release(bytes);
  }

  /** The release of bytes already counted as used. */
  private release(bytes: number): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.used -= bytes;
      this.wake();
    };
  }

  private wake(): void {
    for (let next = this.waiters[0]; next && this.used + next.bytes <= this.capacity; next = this.waiters[0]) {
      this.waiters.shift();
      this.used += next.bytes;
      next.grant();
    }
  }
}

/**
 * Whether a request's body is held against the budget: a picture's bytes
 * (image/*, multipart), or a body larger than a QR text's may be (a picture
 * in JSON). A QR text never waits behind pictures.
 */
export function isPictureSized(req: Request, maxQrcodeBodyBytes: number): boolean {
  if (/^(image\/|multipart\/)/i.test(req.headers['content-type'] ?? '')) return true;
  const length = Number(req.headers['content-length']);
  return Number.isFinite(length) && length > maxQrcodeBodyBytes;
}

/**
 * Room for the picture body of `req` (the verify route's, a checkout
 * upload's), held until its answer is sent or the connection is gone; false
 * when it waited too long, and the caller answers busy without reading it.
 */
export async function holdRoomForPicture(budget: PictureBudget, req: Request, res: Response, maxImageBytes: number): Promise<boolean> {
  const release = await budget.take(pictureBytes(req, maxImageBytes));
  if (!release) return false;
  res.once('finish', release);
  res.once('close', release);
  return true;
}

/** The bytes a picture body is counted as: its declared length, else the image limit. */
function pictureBytes(req: Request, maxImageBytes: number): number {
  const length = Number(req.headers['content-length']);
  return Number.isFinite(length) && length > 0 ? Math.min(length, maxImageBytes) : maxImageBytes;
}
