// POST /api/v1/verify with a slip picture (`image`, base64): read by the
// worker pool, charged like a QR text, refused (free) when it is not a slip
// picture, and kept off the event loop so QR-text verifications go on.
import { Writable } from 'node:stream';
import { deflateSync, crc32 } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/log.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { testEngines } from '../helpers/engines.js';
import { generateSlipImages, type SlipImage } from '../images/slip-images.js';
import { unreadableQrPicture } from '../images/unreadable-qr.js';

let slips: SlipImage[];
let blank: Buffer;
let bomb: Buffer;

/** A real PNG of 20000×20000 1-bit pixels that is ~50 KB on disk (sharp takes seconds to write one). */
function pngBomb(side = 20_000): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([head, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 1; // bit depth; colour type 0 = grayscale
  const rows = Buffer.alloc((side / 8 + 1) * side);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

beforeAll(async () => {
  slips = await generateSlipImages(2);
  blank = await sharp({ create: { width: 600, height: 900, channels: 3, background: '#f4f4f4' } }).jpeg().toBuffer();
  bomb = pngBomb();
});

const b64 = (b: Buffer) => b.toString('base64');

describe.each(testEngines())('image verification on %s', (engine) => {
  let app: TestApp;
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });

  beforeAll(async () => {
    const logger = createLogger('trace', sink);
    app = await startApp({ logger, databaseUrl: await engine.databaseUrl(), env: { IMAGE_WORKERS: '1', IMAGE_QUEUE_MAX: '64' } });
  });
  afterAll(async () => {
    await app?.stop();
    await engine.dispose();
  });

  const balance = async (accountId: string) => {
    const a = await app.store.getAccount(accountId);
    return { credits: a!.credits, held: a!.held, usage: a!.usage };
  };
  const image = (apiKey: string, body: unknown) => app.post(body, { 'x-api-key': apiKey });

  it('verifies phone-like slip pictures, answers the QR it read and charges each once', async () => {
    const { accountId, apiKey } = await app.account(5);
    const first = await image(apiKey, { image: b64(slips[0]!.image) });
    const second = await image(apiKey, { image: `data:image/jpeg;base64,${b64(slips[1]!.image)}`, checks: { amount: 2 } });

    expect(first.status).toBe(200);
    expect(Object.keys(first.body)).toEqual(['status', 'data', 'message', 'qrcode']);
    expect(first.body).toMatchObject({ status: 'success', message: 'slip verified', qrcode: slips[0]!.qrcode });
    expect(second.body).toMatchObject({ status: 'success', qrcode: slips[1]!.qrcode, checks: { amount: { passed: true, expected: 2, actual: 2 } } });
    expect(await balance(accountId)).toEqual({ credits: 3, held: 0, usage: 2 });
    const records = (await app.store.listVerifyTransactions({ accountId, limit: 10 })).items;
    expect(records.map((r) => [r.qrcode, r.source]).sort()).toEqual([slips[0]!.qrcode, slips[1]!.qrcode].sort().map((q) => [q, 'image']));
    // The picture is not kept anywhere in the record.
    expect(JSON.stringify(records)).not.toContain(b64(slips[0]!.image).slice(0, 64));

    // A QR-text verification records no source (older rows have none either).
    expect((await app.verify(apiKey, sandboxQr())).body.status).toBe('success');
    const plain = (await app.store.listVerifyTransactions({ accountId, limit: 10 })).items.find((r) => r.source === undefined);
    expect(plain).toBeDefined();
  });

  it('a picture without a slip QR is a free HTTP 200 failure recorded as unreadable_image', async () => {
    const { accountId, apiKey } = await app.account(2);
    const res = await image(apiKey, { image: b64(blank) });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ status: 'error', message: 'no slip QR code found in the image' });
    expect(await balance(accountId)).toEqual({ credits: 2, held: 0, usage: 0 });
    const errors = (await app.store.listRequestErrors({ accountId, limit: 10 })).items;
    expect(errors.map((e) => [e.kind, e.qrcode])).toEqual([['unreadable_image', null]]);
  });

  it('refuses bad image bodies with 400, before anything is held', async () => {
    const { accountId, apiKey } = await app.account(2);
    const corrupt = Buffer.concat([slips[0]!.image.subarray(0, 64), Buffer.alloc(2000, 7)]);
    const cases: [unknown, RegExp][] = [
      [{ image: b64(corrupt) }, /not a readable JPEG, PNG or WebP picture/],
      [{ image: 'this is not base64!' }, /not valid base64/],
      [{ image: b64(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')) }, /must be a JPEG, PNG or WebP file/],
      [{ image: 12 }, /image must be a string/],
      [{ image: '' }, /image must not be empty/],
      [{ image: b64(slips[0]!.image), qrcode: sandboxQr() }, /either qrcode or image, not both/],
      [{}, /qrcode is required/],
      [{ image: b64(slips[0]!.image), checks: { colour: 'red' } }, /unknown check/],
    ];
    for (const [body, message] of cases) {
      const res = await image(apiKey, body);
      expect([res.status, res.body.status, res.body.code], JSON.stringify(body).slice(0, 80)).toEqual([400, 'error', undefined]);
      expect(res.body.message).toMatch(message);
    }
    expect(await balance(accountId)).toEqual({ credits: 2, held: 0, usage: 0 });
  });

  it('refuses a decompression bomb by its header: 400, nothing charged, memory stays bounded', async () => {
    const { accountId, apiKey } = await app.account(2);
    expect(bomb.length).toBeLessThan(200_000);
    const before = process.memoryUsage().rss;
    const res = await image(apiKey, { image: b64(bomb) });
    const grown = process.memoryUsage().rss - before;
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ status: 'error', message: 'image has more pixels than the limit of 40000000' });
    // 400 million pixels decoded would be ≥ 400 MB.
    expect(grown).toBeLessThan(300 * 1024 * 1024);
    expect(await balance(accountId)).toEqual({ credits: 2, held: 0, usage: 0 });
  });

  it('413 for an image body over MAX_IMAGE_BYTES, and for a qrcode body over MAX_BODY_BYTES as before', async () => {
    const { apiKey } = await app.account(1);
    const huge = await image(apiKey, { image: 'A'.repeat(4_200_000) });
    expect(huge.status).toBe(413);
    expect(huge.body).toStrictEqual({ status: 'error', message: 'request body is larger than 4194304 bytes' });
    const long = await image(apiKey, { qrcode: 'x'.repeat(17_000) });
    expect(long.status).toBe(413);
    expect(long.body).toStrictEqual({ status: 'error', message: 'request body is larger than 16384 bytes' });
    // Big but not an image body: the qrcode limit applies, whatever it is.
    const junk = await app.post('y'.repeat(30_000), { 'x-api-key': apiKey, 'content-type': 'text/plain' });
    expect(junk.status).toBe(413);
  });

  it('1022 and 1023 come before the picture is read: no decode is spent', async () => {
    const broke = await app.account(0);
    const gone = await app.account(3);
    await app.accounts.deleteAccount(gone.accountId);
    const decodes = app.images.stats.decodes;
    const poor = await image(broke.apiKey, { image: b64(slips[0]!.image) });
    const deleted = await image(gone.apiKey, { image: b64(slips[0]!.image) });
    expect([poor.status, poor.body.code]).toEqual([400, 1023]);
    expect([deleted.status, deleted.body.code]).toEqual([400, 1022]);
    expect(app.images.stats.decodes).toBe(decodes);
  });

  it('QR-text verifications sent during a flood of pictures are all answered', async () => {
    // One account per request: FerretDB's holds are not atomic under concurrency on one account.
    const accounts = await Promise.all(Array.from({ length: 20 }, () => app.account(1)));
    const pictures = accounts.slice(0, 8).map((a, i) => image(a.apiKey, { image: b64(slips[i % 2]!.image) }));
    const texts = accounts.slice(8).map((a) => app.verify(a.apiKey, sandboxQr()));
    const answered = await Promise.all(texts);
    expect(answered.map((r) => r.body.message)).toEqual(Array(12).fill('slip verified'));
    expect((await Promise.all(pictures)).map((r) => r.body.message)).toEqual(Array(8).fill('slip verified'));
    for (const a of accounts) expect(await balance(a.accountId)).toEqual({ credits: 0, held: 0, usage: 1 });
  });

  it('never writes a picture to the log (every line at trace level)', () => {
    expect(logLines.length).toBeGreaterThan(0);
    const log = logLines.join('');
    for (const picture of [slips[0]!.image, slips[1]!.image, blank, bomb]) expect(log).not.toContain(b64(picture).slice(100, 164));
  });
});

describe('the decoder pool under pressure', () => {
  let app: TestApp;
  let unreadable: Buffer;

  beforeAll(async () => {
    // A QR that never reads: every decode attempt runs, so it keeps its thread busy.
    unreadable = await unreadableQrPicture();
    app = await startApp({ env: { IMAGE_WORKERS: '1', IMAGE_QUEUE_MAX: '1', IMAGE_DECODE_TIMEOUT_MS: '1500' } });
  });
  afterAll(async () => {
    await app?.stop();
  });

  /** Waits for the pool to reach a state; fails if the request ended before it did. */
  const until = async (done: () => boolean, request: Promise<{ status: number; body: unknown }>) => {
    let ended: unknown;
    void request.then((r) => (ended = r));
    while (!done()) {
      if (ended) throw new Error(`the request ended first: ${JSON.stringify(ended)}`);
      await new Promise((r) => setImmediate(r));
    }
  };

  it('a full queue answers 429 with Retry-After; an image past its time budget loses its thread; nothing is charged', async () => {
    const { accountId, apiKey } = await app.account(5);
    const send = (img: Buffer) => app.post({ image: b64(img) }, { 'x-api-key': apiKey });
    expect(unreadable.length * 1.34).toBeLessThan(4_194_304);
    const busy = send(unreadable);
    await until(() => app.images.stats.running === 1, busy);
    const queued = send(Buffer.concat([slips[0]!.image.subarray(0, 64), Buffer.alloc(2000, 7)]));
    await until(() => app.images.stats.queued === 1, queued);
    const refused = await send(slips[0]!.image);

    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    // Like every 429: no balance (docs/api.md, Balance header).
    expect(refused.headers.get('x-credits-remaining')).toBeNull();
    expect(refused.body).toStrictEqual({ status: 'error', message: 'too many images are being read right now; retry shortly' });
    expect(app.images.stats.busy).toBe(1);
    // The unreadable QR keeps jsQR busy for seconds; the budget is 1.5 s.
    const slow = await busy;
    expect([slow.status, slow.body.status, slow.body.message]).toEqual([200, 'error', expect.stringMatching(/could not be read in time/)]);
    expect((await queued).status).toBe(400);
    expect(app.images.stats).toMatchObject({ timeouts: 1, threadsStarted: 2, running: 0, queued: 0 });
    const account = await app.store.getAccount(accountId);
    expect([account!.credits, account!.usage]).toEqual([5, 0]);
    const errors = (await app.store.listRequestErrors({ accountId, limit: 10 })).items;
    expect(errors.map((e) => e.kind)).toEqual(['unreadable_image']);
  });
});
