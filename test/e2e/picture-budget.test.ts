// IMAGE_BYTES_IN_FLIGHT on a real server: a picture body is read only once
// its bytes fit beside the pictures already held; until then it waits unread,
// while QR texts are answered as usual. A client that goes away frees its room.
// The checkout page's slip uploads share the same budget.
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

/** A picture upload that declares nearly the whole budget and sends only its first bytes: a slow phone. */
function stalledUpload(apiKey: string): Socket {
  const { hostname, port } = new URL(app.publicUrl);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  socket.write(`POST ${VERIFY_PATH} HTTP/1.1\r\nhost: x\r\nx-api-key: ${apiKey}\r\ncontent-type: image/png\r\ncontent-length: ${BUDGET - 100}\r\n\r\n`);
  socket.write(Buffer.alloc(1_000));
  return socket;
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
});
