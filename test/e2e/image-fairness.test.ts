// One key flooding the picture pool: its pictures beyond IMAGE_MAX_PER_ACCOUNT
// are refused (429, Retry-After, nothing charged) before they take a place in
// the queue every merchant shares, so another key's picture and QR texts are
// still read and verified while the flood goes on.
import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';
import { generateSlipImages, type SlipImage } from '../images/slip-images.js';
import { unreadableQrPicture } from '../images/unreadable-qr.js';

const FLOOD = 12;
const PER_ACCOUNT = 2;

describe('a flood of pictures from one key', () => {
  let app: TestApp;
  let unreadable: Buffer;
  let slip: SlipImage;

  beforeAll(async () => {
    slip = (await generateSlipImages(1))[0]!;
    // A QR that never reads: every decode attempt runs, so each keeps the thread until its budget ends.
    unreadable = await unreadableQrPicture();
    // One thread and a queue of 4: without the per-account limit, the flood alone would fill it.
    app = await startApp({ env: { IMAGE_WORKERS: '1', IMAGE_QUEUE_MAX: '4', IMAGE_MAX_PER_ACCOUNT: String(PER_ACCOUNT), IMAGE_DECODE_TIMEOUT_MS: '1500' } });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("answers the flooding key 429 beyond its share, and reads another key's picture and QR text meanwhile", { timeout: 120_000 }, async () => {
    const flooder = await app.account(100);
    const other = await app.account(10);
    const post = (apiKey: string, body: unknown) => app.post(body, { 'x-api-key': apiKey });

    const flood = Array.from({ length: FLOOD }, () => post(flooder.apiKey, { image: unreadable.toString('base64') }));
    // The refusals come back first: they never wait for a thread.
    const answered: Awaited<(typeof flood)[number]>[] = [];
    for (const p of flood) void p.then((r) => answered.push(r));
    const refusedSoFar = () => answered.filter((r) => r.status === 429);
    while (refusedSoFar().length < FLOOD - PER_ACCOUNT && answered.length < FLOOD) await new Promise((r) => setTimeout(r, 20));
    const refused = refusedSoFar();
    expect(refused).toHaveLength(FLOOD - PER_ACCOUNT);
    for (const r of refused) {
      expect(r.body).toStrictEqual({ status: 'error', message: 'too many pictures of this account are being read right now; retry shortly' });
      expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(r.headers.get('x-credits-remaining')).toBeNull();
    }
    // The flooder's two pictures hold the thread and one queue place; the others are free.
    expect(app.images.stats.running + app.images.stats.queued).toBe(PER_ACCOUNT);

    const picture = post(other.apiKey, { image: slip.image.toString('base64') });
    const text = app.verify(other.apiKey, sandboxQr());
    expect((await text).body.message).toBe('slip verified');
    const read = await picture;
    expect([read.status, read.body.message, read.body.qrcode]).toEqual([200, 'slip verified', slip.qrcode]);

    const all = await Promise.all(flood);
    expect(all.filter((r) => r.status === 429)).toHaveLength(FLOOD - PER_ACCOUNT);
    // The flooder's own two were looked at and found unreadable (free HTTP 200 failures).
    expect(all.filter((r) => r.status === 200).map((r) => r.body.status)).toEqual(['error', 'error']);
    expect(app.images.stats.busy).toBe(0);

    const flooderAccount = await app.store.getAccount(flooder.accountId);
    expect([flooderAccount!.credits, flooderAccount!.usage, flooderAccount!.held]).toEqual([100, 0, 0]);
    const otherAccount = await app.store.getAccount(other.accountId);
    expect([otherAccount!.credits, otherAccount!.usage, otherAccount!.held]).toEqual([8, 2, 0]);
  });

  it('the decoder thread runs at nice 10 and no other thread does: sharp\'s libvips and libuv threads keep the normal priority (Linux: nice is per thread)', async () => {
    // A picture read now, so the one decoder thread (IMAGE_WORKERS=1) is alive; the flood's pictures, which
    // ZXing's first look cannot read, went on to sharp, so libvips' threads exist.
    const other = await app.account(10);
    expect((await app.post({ image: slip.image.toString('base64') }, { 'x-api-key': other.apiKey })).body.qrcode).toBe(slip.qrcode);
    expect(app.images.stats.threadsStarted).toBeGreaterThan(0);
    const threads = () =>
      readdirSync('/proc/self/task').flatMap((tid) => {
        try {
          const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
          return [{ tid, name: readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim(), nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) }];
        } catch {
          return []; // exited meanwhile
        }
      });
    // A decoder thread replaced after a timeout may still be on its way out.
    await eventually(async () => threads().filter((t) => t.nice === 10).length === 1);
    const all = threads();
    expect(all.find((t) => t.tid === String(process.pid))!.nice).toBe(0);
    const vips = all.filter((t) => t.name.startsWith('libvips'));
    expect(vips.length).toBeGreaterThan(0);
    expect(vips.every((t) => t.nice === 0)).toBe(true);
    expect(all.filter((t) => t.nice !== 0).map((t) => [t.name, t.nice])).toEqual([['node', 10]]);
  });
});
