// POST /api/v1/verify with the picture as bytes: the raw body
// (`Content-Type: image/jpeg|png|webp`, the options as query parameters) or a
// multipart form (file part `image`, the options as fields). The answer is
// the one `image` in JSON gets; bad bodies are clear JSON errors, free and
// unrecorded; the limits are the image limits.
import QRCode from 'qrcode';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERIFY_PATH } from '../../src/http/public-app.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';

/** Under the raw limit as bytes, over it as base64 JSON: which form went over the wire shows in the answer. */
const MAX_IMAGE_BYTES = 60_000;
const PAYMENT_REQUEST = `pr_${'0'.repeat(32)}`;

let app: TestApp;
let png: Buffer;
let jpeg: Buffer;
let qrcode: string;

beforeAll(async () => {
  app = await startApp({ env: { MAX_IMAGE_BYTES: String(MAX_IMAGE_BYTES), IMAGE_WORKERS: '1' } });
  qrcode = sandboxQr({ amount: 75 });
  png = await QRCode.toBuffer(qrcode, { width: 400, margin: 4 });
  jpeg = await sharp(png).jpeg({ quality: 90 }).toBuffer();
});
afterAll(async () => {
  await app?.stop();
});

async function post(body: BodyInit, headers: Record<string, string>, query = ''): Promise<{ status: number; body: any; contentType: string | null }> {
  const res = await fetch(`${app.publicUrl}${VERIFY_PATH}${query}`, { method: 'POST', headers, body });
  return { status: res.status, contentType: res.headers.get('content-type'), body: JSON.parse(await res.text()) };
}

function form(parts: Array<[string, string | Blob, string?]>): FormData {
  const fd = new FormData();
  for (const [name, value, filename] of parts) {
    if (typeof value === 'string') fd.append(name, value);
    else fd.append(name, value, filename);
  }
  return fd;
}

const blob = (b: Buffer, type = 'image/png') => new Blob([new Uint8Array(b)], { type });

const balance = async (accountId: string) => {
  const a = await app.store.getAccount(accountId);
  return { credits: a!.credits, held: a!.held, usage: a!.usage };
};

const records = async (accountId: string) => ({
  verified: (await app.store.listVerifyTransactions({ accountId, limit: 50 })).items.length,
  failed: (await app.store.listRequestErrors({ accountId, limit: 50 })).items.length,
});

describe('a slip picture sent as bytes', () => {
  it('answers the raw body exactly as the same picture in JSON, and charges each once', async () => {
    const { accountId, apiKey } = await app.account(5);
    const asJson = await post(JSON.stringify({ image: png.toString('base64') }), { 'x-api-key': apiKey, 'content-type': 'application/json' });
    const asPng = await post(new Uint8Array(png), { 'x-api-key': apiKey, 'content-type': 'image/png' });
    const asJpeg = await post(new Uint8Array(jpeg), { 'x-api-key': apiKey, 'content-type': 'image/jpeg' });
    expect(asJson).toMatchObject({ status: 200, body: { status: 'success', qrcode } });
    expect(asPng).toStrictEqual(asJson);
    expect(asJpeg).toStrictEqual(asJson);
    expect(await balance(accountId)).toEqual({ credits: 2, held: 0, usage: 3 });
  });

  it('takes checks (JSON text) and paymentRequest as query parameters', async () => {
    const { accountId, apiKey } = await app.account(3);
    const checks = encodeURIComponent(JSON.stringify({ amount: 75 }));
    const ok = await post(new Uint8Array(png), { 'x-api-key': apiKey, 'content-type': 'image/png' }, `?checks=${checks}`);
    expect(ok.body).toMatchObject({ status: 'success', qrcode, checks: { amount: { passed: true, expected: 75, actual: 75 } } });
    const unknownRequest = await post(new Uint8Array(png), { 'x-api-key': apiKey, 'content-type': 'image/png' }, `?paymentRequest=${PAYMENT_REQUEST}`);
    expect(unknownRequest).toMatchObject({ status: 400, body: { status: 'error', message: `paymentRequest ${PAYMENT_REQUEST} not found` } });
    expect(await balance(accountId)).toEqual({ credits: 2, held: 0, usage: 1 });
  });

  it('reads a multipart form: the file part image, the options as fields', async () => {
    const { accountId, apiKey } = await app.account(3);
    const plain = await post(form([['image', blob(png), 'slip.png']]), { 'x-api-key': apiKey });
    const asJson = await post(JSON.stringify({ image: png.toString('base64') }), { 'x-api-key': apiKey, 'content-type': 'application/json' });
    expect(plain).toStrictEqual(asJson);
    const checked = await post(form([['checks', JSON.stringify({ amount: 80 })], ['image', blob(jpeg, 'image/jpeg'), 'slip.jpg']]), { 'x-api-key': apiKey });
    expect(checked.body).toMatchObject({ status: 'success', checks: { amount: { passed: false, expected: 80, actual: 75 } } });
    expect(await balance(accountId)).toEqual({ credits: 0, held: 0, usage: 3 });
  });

  it('is bound by the image limit, not base64\'s: a picture too big as base64 JSON passes as bytes', async () => {
    const { apiKey } = await app.account(2);
    // A PNG still reads with bytes after its end: 0.9 of the limit as bytes is 1.2 times it as base64.
    const padded = Buffer.concat([png, Buffer.alloc(Math.floor(MAX_IMAGE_BYTES * 0.9) - png.length, 0xaa)]);
    const asBytes = await post(new Uint8Array(padded), { 'x-api-key': apiKey, 'content-type': 'image/png' });
    const asJson = await post(JSON.stringify({ image: padded.toString('base64') }), { 'x-api-key': apiKey, 'content-type': 'application/json' });
    expect(asBytes.body).toMatchObject({ status: 'success', qrcode });
    expect(asJson).toMatchObject({ status: 413, body: { status: 'error', message: `request body is larger than ${MAX_IMAGE_BYTES} bytes` } });
    const big = Buffer.concat([png, Buffer.alloc(MAX_IMAGE_BYTES, 0xaa)]);
    const tooBig = await post(new Uint8Array(big), { 'x-api-key': apiKey, 'content-type': 'image/png' });
    expect(tooBig).toStrictEqual({ status: 413, contentType: expect.stringMatching(/^application\/json/), body: { status: 'error', message: `request body is larger than ${MAX_IMAGE_BYTES} bytes` } });
    const tooBigForm = await post(form([['image', blob(big), 'slip.png']]), { 'x-api-key': apiKey });
    expect(tooBigForm).toMatchObject({ status: 413, body: { status: 'error' } });
  });

  it.each([
    ['an empty raw body', () => ({ body: new Uint8Array(0), headers: { 'content-type': 'image/png' } }), 400, 'image must not be empty'],
    ['junk bytes', () => ({ body: new TextEncoder().encode('not a picture at all'), headers: { 'content-type': 'image/jpeg' } }), 400, 'image must be a JPEG, PNG or WebP file'],
    ['a GIF', () => ({ body: new TextEncoder().encode('GIF89a....'), headers: { 'content-type': 'image/gif' } }), 415, 'Content-Type image/gif is not read; send image/jpeg, image/png or image/webp (or application/json)'],
    ['text/plain (the contract\'s 415, unchanged)', () => ({ body: new Uint8Array(png), headers: { 'content-type': 'text/plain' } }), 415, 'Content-Type must be application/json'],
    ['no content type', () => ({ body: new Uint8Array(png), headers: {} as Record<string, string> }), 415, 'Content-Type must be application/json'],
    ['multipart without its boundary', () => ({ body: new Uint8Array(png), headers: { 'content-type': 'multipart/form-data' } }), 415, 'Content-Type multipart/form-data needs its boundary parameter'],
    ['a broken multipart body', () => ({ body: new TextEncoder().encode('--x\r\nnonsense'), headers: { 'content-type': 'multipart/form-data; boundary=zzz' } }), 400, 'the multipart/form-data body could not be parsed'],
    ['a form without the image part', () => ({ body: form([['checks', '{"duplicate":true}']]), headers: {} }), 400, 'image is required: a file part named image holding the picture'],
    ['a form whose image is text', () => ({ body: form([['image', png.toString('base64')]]), headers: {} }), 400, "image must be a file part holding the picture's bytes, not a text field"],
    ['a form with two pictures', () => ({ body: form([['image', blob(png), 'a.png'], ['image', blob(png), 'b.png']]), headers: {} }), 400, 'send one image file part, not several'],
    ['a form with another file', () => ({ body: form([['image', blob(png), 'a.png'], ['photo', blob(png), 'b.png']]), headers: {} }), 400, 'unexpected file part "photo"; the picture goes in the part named image'],
    ['a form with an empty picture', () => ({ body: form([['image', blob(Buffer.alloc(0)), 'a.png']]), headers: {} }), 400, 'image must not be empty'],
    ['an unknown option', () => ({ body: new Uint8Array(png), headers: { 'content-type': 'image/png' }, query: '?qrcode=x' }), 400, 'unknown option "qrcode" beside a picture; known options: paymentRequest, checks, recheck'],
    ['an option given twice', () => ({ body: new Uint8Array(png), headers: { 'content-type': 'image/png' }, query: '?checks={}&checks={}' }), 400, 'checks is given more than once'],
    ['checks that are not JSON', () => ({ body: new Uint8Array(png), headers: { 'content-type': 'image/png' }, query: '?checks=amount' }), 400, 'checks beside a picture must be JSON text, e.g. {"duplicate": true, "amount": 250.00}'],
    ['an unknown check', () => ({ body: form([['checks', '{"nope":1}'], ['image', blob(png), 'a.png']]), headers: {} }), 400, /^unknown check "nope"/],
    ['a malformed paymentRequest', () => ({ body: new Uint8Array(png), headers: { 'content-type': 'image/png' }, query: '?paymentRequest=pr_1' }), 400, 'paymentRequest must be a payment request id (pr_ and 32 hex digits)'],
  ] as const)('refuses %s with a JSON error, charging and recording nothing', async (_name, make, status, message) => {
    const { accountId, apiKey } = await app.account(2);
    const { body, headers, query } = make() as { body: BodyInit; headers: Record<string, string>; query?: string };
    const answer = await post(body, { 'x-api-key': apiKey, ...headers }, query);
    expect(answer.status).toBe(status);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.body).toStrictEqual({ status: 'error', message: typeof message === 'string' ? message : expect.stringMatching(message) });
    expect(await balance(accountId)).toEqual({ credits: 2, held: 0, usage: 0 });
    expect(await records(accountId)).toEqual({ verified: 0, failed: 0 });
  });

  it('reads no body for a refused key, bytes or not', async () => {
    const answer = await post(new Uint8Array(png), { 'x-api-key': 'slip_doesNotExist0000000000000000000', 'content-type': 'image/png' });
    expect(answer).toMatchObject({ status: 401, body: { status: 'error', code: 1021 } });
  });
});
