// One decoder thread of the image pool: reads the slip QR of the images the
// pool sends, one at a time. Runs the same decoder as `slipgate verify --image`.
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import sharp from 'sharp';
import { decodeSlipImage, SlipImageError } from '../slip-image/decode-image.js';
import type { DecodeReply, DecodeRequest } from './decode-messages.js';

// libvips' operation cache would keep pixels of images never seen again.
sharp.cache(false);
// One libvips thread per picture (its default is one per core). A slip
// picture's pipeline is a decode and a channel copy; the decode is
// sequential, so the extra threads only wait for it and are woken to hand
// rows over, which costs most where it is most common: one picture at a
// time, on a machine with an idle core to wake. Measured on a 2-core VM,
// decodeSlipImage alone in one process: a 1080×2340 PNG screenshot's read
// took 13.5 ms of CPU against 20.5 ms (and 13.5 ms of wall time against
// 16 ms); with both decoder threads busy, the same either way; a
// 12-megapixel JPEG, the same either way. Scenario I's "one at a time" row
// measures it through the server (docs/performance.md#slip-pictures). The setting is libvips' own, for
// the whole process, where no other image work is large.
sharp.concurrency(1);

/**
 * On Linux the nice value belongs to a thread, not the process: this decoder
 * thread gives way to the event loop, so a flood of pictures that keeps every
 * core busy does not slow the QR-text verifications beside it. It reaches this
 * thread only: ZXing's first look (which reads most pictures) and jsQR run
 * here, but sharp's work for the pictures ZXing misses runs on libuv's pool
 * and libvips' worker threads, created by others at the normal priority
 * (test/e2e/image-fairness.test.ts checks exactly this). Lowering one's own
 * priority needs no privilege. Elsewhere setPriority would lower the whole
 * process, so it is left alone.
 */
const DECODER_NICE = 10;
if (process.platform === 'linux') setPriority(DECODER_NICE);

const port = parentPort;
if (!port) throw new Error('decode-worker must run as a worker thread');

port.on('message', (job: DecodeRequest) => {
  void answer(job).then((reply) => port.postMessage(reply));
});
// The image budget starts now, not while this thread was loading.
port.postMessage({ ready: true });

async function answer(job: DecodeRequest): Promise<DecodeReply> {
  try {
    const qrcode = await decodeSlipImage(Buffer.from(job.bytes), { maxPixels: job.maxPixels });
    return { id: job.id, ok: true, qrcode };
  } catch (err) {
    if (err instanceof SlipImageError) return { id: job.id, ok: false, reason: err.reason, message: err.message };
    return { id: job.id, ok: false, reason: 'failed', message: (err as Error).message };
  }
}
