// Every slip API end to end (SlipOK, RDCW, EasySlip, Slip2Go): a real
// `slipgate serve` (a child process on SQLite) whose UPSTREAMS names the
// provider's simulator on a real port,
// configured as a shop would (the entry `simulate-bank` prints). A payment
// request is paid through its checkout page with a slip picture, charged
// once; a slip the provider says the bank shows later is kept, free, and
// paid by the server's own re-check once the simulator publishes it. The
// re-check runs on the server's clock (its first delay, or the provider's
// when longer), so the test waits for the state, never for a time.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeServices } from '../../src/compose-store.js';
import type { Store } from '../../src/domain/ports/store.js';
import { openStore } from '../../src/store/open.js';
import { bankSimulator, startSimulatedBank, type SimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';
import { eventually, spawnSlipgate, type Child } from '../helpers/child.js';
import { tempDir } from '../helpers/temp.js';
import { slipFor } from '../payments/helpers.js';

const PUBLIC_URL = 'https://pay.example.com';

describe.each(['slipok', 'rdcw', 'easyslip', 'slip2go'])('%s through slipgate serve', (provider) => {
  const dir = tempDir();
  const databaseUrl = `sqlite:${join(dir.path, `${provider}.db`)}`;
  let store: Store;
  let bank: SimulatedBank;
  let child: Child;
  let apiKey: string;
  let accountId: string;

  beforeAll(async () => {
    store = await openStore(databaseUrl);
    const services = storeServices(store);
    const { account, apiKey: key } = await services.accounts.createAccount({ name: `${provider} shop`, credits: 10, actor: 'test' });
    [accountId, apiKey] = [account.id, key.secret];
    await services.admin.addReceiver('test', { accountId, promptPay: '0812345678', nameEn: 'SOMCHAI JAIDEE' });
    bank = await startSimulatedBank({ provider, port: 0 });
    const entry = bankSimulator(provider).entry(bank.url, bank.credentials);
    child = await spawnSlipgate({
      DATABASE_URL: databaseUrl,
      UPSTREAMS: JSON.stringify([entry]),
      PUBLIC_URL,
      SECRETS_KEY: randomBytes(32).toString('hex'),
      CHECKOUT_UPLOADS_PER_IP_PER_MIN: '100',
    });
  }, 60_000);
  afterAll(async () => {
    child?.proc.kill('SIGTERM');
    await child?.exited;
    await bank?.close();
    await store?.close();
    dir.remove();
  });

  const credits = async () => (await store.getAccount(accountId))!.credits;
  async function order(amount: number, reference: string): Promise<{ id: string; url: string }> {
    const res = await fetch(`${child.publicUrl}/api/v1/payment-requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ amount, reference }),
    });
    expect(res.status).toBe(201);
    const made = ((await res.json()) as { data: { id: string; checkoutUrl: string } }).data;
    return { id: made.id, url: child.publicUrl + made.checkoutUrl.slice(PUBLIC_URL.length) };
  }
  async function upload(url: string, amount: number): Promise<number> {
    const form = new FormData();
    const picture = await QRCode.toBuffer(slipFor({ amount }), { type: 'png', width: 360, margin: 4 });
    form.append('slip', new Blob([new Uint8Array(picture)], { type: 'image/png' }), 'slip.png');
    return (await fetch(`${url}?lang=en`, { method: 'POST', body: form, redirect: 'manual' })).status;
  }
  /** The request's status as the shop's API reads it (the checkout page's status.json is rate-limited per address). */
  async function status(id: string): Promise<string> {
    const res = await fetch(`${child.publicUrl}/api/v1/payment-requests/${id}`, { headers: { 'x-api-key': apiKey } });
    return ((await res.json()) as { data: { status: string } }).data.status;
  }

  it('pays a payment request through its checkout page, charged once', { timeout: 60_000 }, async () => {
    const before = await credits();
    const calls = bank.state.calls.verify;
    const paying = await order(220, `${provider}-paid`);
    expect(await upload(paying.url, 220)).toBe(303);
    expect(await status(paying.id)).toBe('paid');
    expect(bank.state.calls.verify).toBe(calls + 1);
    expect(await credits()).toBe(before - 1);
    // slipgate asked the provider for none of its own checks: they are slipgate's.
    expect(bank.state.calls.providerChecks).toBe(0);
  });

  it('keeps a slip the bank shows later, free, and pays it by its re-check once published', { timeout: 200_000 }, async () => {
    const before = await credits();
    bank.state.behavior.answer = 'pending';
    bank.state.behavior.pendingMinutes = 0;
    const late = await order(230, `${provider}-late`);
    expect(await upload(late.url, 230)).toBe(303);
    expect(await status(late.id)).toBe('verifying');
    expect(await credits()).toBe(before);
    const [kept] = await store.openRechecks({ accountId, limit: 10 });
    expect(kept).toMatchObject({ paymentRequestId: late.id });

    bank.state.behavior.answer = 'normal';
    await eventually(async () => {
      await sleep(500);
      return (await status(late.id)) === 'paid';
    }, 180_000);
    expect(await credits()).toBe(before - 1);
  });
});
