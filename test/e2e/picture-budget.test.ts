// IMAGE_BYTES_IN_FLIGHT on a real server: a picture body is read only once
// its bytes fit beside the pictures already held; until then it waits unread,
// while QR texts are answered as usual. A client that goes away frees its room,
// also one that hangs up while it waits. One client address holds at most its
// share (picture-budget.ts ADDRESS_SHARE). A body of undeclared length (chunked)
// is counted too. The checkout page's slip uploads share the same budget.
import { connect, type Socket } from 'node:net';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERIFY_PATH } from '../../src/http/public-app.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { create, shop, slipFor } from '../payments/helpers.js';

const BUDGET = 65_536;
const PUBLIC_URL = 'https://pay.example.com';

let app: TestApp;

beforeAll(async () => {
  app = await startApp({ env: { IMAGE_BYTES_IN_FLIGHT: String(BUDGET), IMAGE_WORKERS: '1', PUBLIC_URL, SECRETS_KEY: 'c'.repeat(64), CHECKOUT_UPLOADS_PER_IP_PER_MIN: '100' } });
});
afterAll(async () => {
  await app?.stop();
});

/** Resolves once `check` holds, looking every few ms (the server's own state, not a guess at timing). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 2_000 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}

interface Stall {
  /** The bytes it declares (default: nearly the whole budget). */
  bytes?: number;
  /** The loopback address it comes from (default 127.0.0.1). */
  from?: string;
  /** Header lines of its own, e.g. chunked instead of a length. */
  headers?: string;
}

/** A picture upload that declares its bytes and sends only its first ones: a slow phone. */
function stalledUpload(apiKey: string, stall: Stall = {}): Socket {
  const { hostname, port } = new URL(app.publicUrl);
  const socket = connect({ port: Number(port), host: hostname, localAddress: stall.from ?? '127.0.0.1' });
  socket.on('error', () => {});
  const headers = stall.headers ?? `content-type: image/png\r\ncontent-length: ${stall.bytes ?? BUDGET - 100}\r\n`;
  socket.write(`POST ${VERIFY_PATH} HTTP/1.1\r\nhost: x\r\nx-api-key: ${apiKey}\r\n${headers}\r\n`);
  // A chunked body's first chunk is framed as one (3e8: 1,000 bytes), so that the parser waits for the rest.
  if (/transfer-encoding: chunked/i.test(headers)) socket.write('3e8\r\n');
  socket.write(Buffer.alloc(1_000));
  return socket;
}

/** Resolves once the server saw `socket` close (its answer, or our own hang-up, has gone through). */
function closed(socket: Socket): Promise<void> {
  return new Promise((resolve) => (socket.closed ? resolve() : socket.once('close', () => resolve())));
}

describe('the picture bytes a process holds at once', () => {
  it('keeps a picture unread while another holds the room, answers QR texts meanwhile, and reads it once the room is free', async () => {
    const { accountId, apiKey } = await app.account(10);
    const slow = stalledUpload(apiKey);
    // Its room is taken once its key passed, before its body is read.
    await until(() => app.pictureBudget.held === BUDGET - 100);
    const qrcode = sandboxQr({ amount: 42 });
    const png = await QRCode.toBuffer(qrcode, { width: 400, margin: 4 });
    expect(png.length).toBeGreaterThan(100);
    const picture = fetch(`${app.publicUrl}${VERIFY_PATH}`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'image/png' }, body: new Uint8Array(png) });
    await until(() => app.pictureBudget.waiting === 1);

    // A QR text does not wait behind the pictures.
    const text = await app.verify(apiKey, sandboxQr({ amount: 7 }));
    expect(text.status).toBe(200);
    expect(text.body.data.amount).toBe(7);
    expect(app.pictureBudget.waiting).toBe(1);

    // The slow phone gives up: its room is free, the waiting picture is read and verified, charged once.
    slow.destroy();
    const answer = await picture;
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { status: string; data: { amount: number } };
    expect(body).toMatchObject({ status: 'success', data: { amount: 42 } });
    expect(app.pictureBudget.waiting).toBe(0);
    const account = await app.store.getAccount(accountId);
    expect(account).toMatchObject({ credits: 8, held: 0 });
    expect(app.pictureBudget.held).toBe(0);
  });

  it('keeps a checkout page upload unread while the room is held, and pays the order with it once the room is free', async () => {
    const merchant = await shop(app, 10);
    const made = (await create(app, merchant, { amount: 61, reference: 'budget-1' })).body.data;
    const page = app.publicUrl + String(made.checkoutUrl).slice(PUBLIC_URL.length);
    const slow = stalledUpload(merchant.apiKey);
    await until(() => app.pictureBudget.held === BUDGET - 100);

    const form = new FormData();
    const png = await QRCode.toBuffer(slipFor({ amount: 61 }), { type: 'png', width: 360, margin: 4 });
    form.append('slip', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'slip.png');
    const upload = fetch(page, { method: 'POST', body: form, redirect: 'manual' });
    await until(() => app.pictureBudget.waiting === 1);
    expect(await app.store.getPaymentRequest(made.id)).toMatchObject({ status: 'pending' });

    slow.destroy();
    const answer = await upload;
    expect(answer.status).toBe(303);
    expect(await app.store.getPaymentRequest(made.id)).toMatchObject({ status: 'paid' });
    expect(await app.store.getAccount(merchant.accountId)).toMatchObject({ credits: 9, held: 0 });
    await until(() => app.pictureBudget.held === 0);
  });

  it('gives back the room of a client that hung up while it waited, once the room is free', async () => {
    const { apiKey } = await app.account(10);
    const holder = stalledUpload(apiKey);
    await until(() => app.pictureBudget.held === BUDGET - 100);
    const gaveUp = stalledUpload(apiKey, { from: '127.0.0.2' });
    await until(() => app.pictureBudget.waiting === 1);

    // It hangs up while it waits: it leaves the queue at once and is never let in.
    gaveUp.destroy();
    await closed(gaveUp);
    // A request sent after the hang-up, answered: the server has seen the hang-up by then (not a wait of 10 s for its turn to end).
    expect((await app.verify(apiKey, sandboxQr({ amount: 3 }))).status).toBe(200);
    expect(app.pictureBudget.waiting).toBe(0);
    holder.destroy();
    await until(() => app.pictureBudget.held === 0);

    // The whole room is there for the next picture (a leak would leave it waiting, then 429).
    const png = await QRCode.toBuffer(sandboxQr({ amount: 5 }), { width: 400, margin: 4 });
    const answer = await fetch(`${app.publicUrl}${VERIFY_PATH}`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'image/png' }, body: new Uint8Array(png) });
    expect(answer.status).toBe(200);
    expect(app.pictureBudget.held).toBe(0);
  });

  it('holds one address to its share of the budget, whatever X-Forwarded-For it names, while another address gets in', async () => {
    const { apiKey } = await app.account(10);
    const share = BUDGET / 4;
    const first = stalledUpload(apiKey, { bytes: share - 1_000 });
    await until(() => app.pictureBudget.held === share - 1_000);
    // The same address again: past its share, it waits though the budget has room; naming another client does not help.
    const second = stalledUpload(apiKey, { headers: `x-forwarded-for: 10.9.9.9\r\ncontent-type: image/png\r\ncontent-length: ${share - 1_000}\r\n` });
    await until(() => app.pictureBudget.waiting === 1);
    // Another address is let in beside it.
    const other = stalledUpload(apiKey, { from: '127.0.0.2', bytes: share - 1_000 });
    await until(() => app.pictureBudget.held === 2 * (share - 1_000));
    expect(app.pictureBudget.waiting).toBe(1);

    // Once its first is gone, the address's second is let in.
    first.destroy();
    await until(() => app.pictureBudget.waiting === 0);
    expect(app.pictureBudget.held).toBe(2 * (share - 1_000));
    second.destroy();
    other.destroy();
    await until(() => app.pictureBudget.held === 0);
  });

  it('counts a chunked body (no Content-Length) as the largest picture, and verifies a chunked JSON picture', async () => {
    const { accountId, apiKey } = await app.account(10);
    const chunked = stalledUpload(apiKey, { headers: 'content-type: application/json\r\ntransfer-encoding: chunked\r\n' });
    // MAX_IMAGE_BYTES (4 MiB) is beyond this budget: it takes it all.
    await until(() => app.pictureBudget.held === BUDGET);
    chunked.destroy();
    await until(() => app.pictureBudget.held === 0);

    const png = await QRCode.toBuffer(sandboxQr({ amount: 9 }), { width: 400, margin: 4 });
    const json = JSON.stringify({ image: png.toString('base64') });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(json.slice(0, 100)));
        controller.enqueue(new TextEncoder().encode(json.slice(100)));
        controller.close();
      },
    });
    const answer = await fetch(`${app.publicUrl}${VERIFY_PATH}`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ status: 'success', data: { amount: 9 } });
    expect(await app.store.getAccount(accountId)).toMatchObject({ credits: 9, held: 0 });
    await until(() => app.pictureBudget.held === 0);
  });
});
