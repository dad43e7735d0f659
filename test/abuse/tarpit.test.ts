// The brake's 429s are answered late (src/http/tarpit.ts), so a flood that
// waits for its answers sends a few requests a second instead of thousands,
// while merchants on other addresses are answered at once. Through a real
// server, the addresses in X-Forwarded-For as behind the nginx recipe.
import type { Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { generateApiKey } from '../../src/domain/keys/api-key.js';
import { Tarpit } from '../../src/http/tarpit.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';

const DELAY_MS = 1_500;
const FLOODER = '203.0.113.66';
const MERCHANT = '198.51.100.10';
const { AUTH_FAILURES_PER_IP_PER_MIN: LIMIT } = loadConfig({});
const BRAKED = { status: 'error', message: 'too many failed authentications from this address; retry later' };

describe('answers to a braked address, held', () => {
  let app: TestApp;
  let merchantKey: string;
  const from = (ip: string, apiKey: string) => app.post({ qrcode: sandboxQr() }, { 'x-forwarded-for': ip, 'x-api-key': apiKey });

  beforeAll(async () => {
    app = await startApp({ env: { TRUST_PROXY_HOPS: '1', AUTH_BRAKE_DELAY_MS: String(DELAY_MS) } });
    merchantKey = (await app.account(1_000)).apiKey;
    // The contract's answers first, at once; the minute may turn on the way, so up to twice.
    for (let i = 0; i < 2 * LIMIT; i++) {
      const answer = await from(FLOODER, generateApiKey().key);
      if (answer.status === 429) break;
      expect(answer.body.code).toBe(1021);
    }
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('answers the braked address after the merchant asking later from another one', async () => {
    let brakedDone = false;
    const braked = from(FLOODER, generateApiKey().key).finally(() => (brakedDone = true));
    const merchant = await from(MERCHANT, merchantKey);
    expect(merchant.body.message).toBe('slip verified');
    expect(brakedDone).toBe(false);
    const answer = await braked;
    expect(answer.status).toBe(429);
    expect(answer.body).toStrictEqual(BRAKED);
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('slows a closed-loop flood to its connections per delay', async () => {
    const connections = 8;
    const until = Date.now() + 2 * DELAY_MS;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (Date.now() < until) statuses.push((await from(FLOODER, generateApiKey().key)).status);
      }),
    );
    // Answered at once, 8 loops send hundreds in 3 s; held, each sends one per delay (a minute turning may let LIMIT through).
    expect(statuses.filter((s) => s === 429).length).toBeLessThanOrEqual(connections * 3);
    expect(statuses.length).toBeLessThanOrEqual(connections * 3 + LIMIT);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(connections);
  });
});

describe('a stopping server', () => {
  it('answers the 429s it holds at once, not after their delay', { timeout: 20_000 }, async () => {
    // A minute's delay: without the release, the stop would wait for it and the test time out.
    const app = await startApp({ env: { TRUST_PROXY_HOPS: '1', AUTH_BRAKE_DELAY_MS: '60000' } });
    const from = () => app.post({ qrcode: sandboxQr() }, { 'x-forwarded-for': FLOODER, 'x-api-key': generateApiKey().key });
    // The brake counts per clock minute: all of this in one.
    const leftInMinute = 60_000 - (Date.now() % 60_000);
    if (leftInMinute < 5_000) await new Promise((resolve) => setTimeout(resolve, leftInMinute + 100));
    for (let i = 0; i < LIMIT; i++) expect((await from()).body.code).toBe(1021);
    const held = from();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await app.stop();
    expect(await held).toMatchObject({ status: 429, body: BRAKED });
  });
});

describe('Tarpit', () => {
  const res = () => ({ destroyed: false }) as Response;

  it('holds up to its cap, answers the rest at once, and answers all it holds on release', () => {
    const tarpit = new Tarpit(60_000, 2);
    const sent: number[] = [];
    for (let i = 0; i < 3; i++) tarpit.answer(res(), () => sent.push(i));
    expect(sent).toEqual([2]);
    expect(tarpit.held).toBe(2);
    tarpit.release();
    expect(sent).toEqual([2, 0, 1]);
    expect(tarpit.held).toBe(0);
    // Stopping: nothing more is held.
    tarpit.answer(res(), () => sent.push(3));
    expect(sent).toEqual([2, 0, 1, 3]);
  });

  it('answers at once with no delay, and never writes to a client that hung up', () => {
    const sent: string[] = [];
    new Tarpit(0).answer(res(), () => sent.push('now'));
    expect(sent).toEqual(['now']);
    const tarpit = new Tarpit(60_000);
    tarpit.answer({ destroyed: true } as Response, () => sent.push('gone'));
    tarpit.release();
    expect(sent).toEqual(['now']);
  });
});
