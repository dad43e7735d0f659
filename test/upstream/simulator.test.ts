// The simulated banks checked against the protocols as written in the issue,
// with plain fetch and literal paths: the adapters and the simulator share
// constants, so this is what keeps both honest.
import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/domain/errors.js';
import { registerSimulateBankCommand, simulateBank } from '../../src/cli/simulate-bank.js';
import { parseSlipQr } from '../../src/domain/verify/slip-qr.js';
import { sandboxQr, slipQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startSimulatedBank, type SimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';

let bank: SimulatedBank | undefined;
afterEach(async () => {
  await bank?.close();
  bank = undefined;
});

const uuid = '3f2b8c1e-4d5a-4e6f-8a9b-0c1d2e3f4a5b';

/** The parsed body; callers say what shape they expect to read from it. */
async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return JSON.parse(await res.text()) as T;
}

describe('simulated KBank', () => {
  async function token(b: SimulatedBank, auth = `${b.credentials.id}:${b.credentials.secret}`) {
    return fetch(`${b.url}/v2/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(auth).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
  }
  const verifyBody = { rqUID: uuid, rqDt: '2025-10-05T22:10:00+07:00', data: { sendingBank: '004', transRef: '015278121420BTF05718' } };

  it('issues a token for the right client credentials and verifies with it', async () => {
    bank = await startSimulatedBank({ provider: 'kbank', port: 0 });
    expect((await token(bank, 'someone:else')).status).toBe(401);
    const issued = await json<{ access_token: string }>(await token(bank));
    expect(issued).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer', expires_in: '3600' });

    const res = await fetch(`${bank.url}/v1/verslip/kbank/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${issued.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify(verifyBody),
    });
    const body = await json(res);
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ statusCode: '0000', data: { transRef: '015278121420BTF05718', sendingBank: '004', amount: expect.any(Number) } });
  });

  it('refuses verify without a valid bearer token, and malformed requests', async () => {
    bank = await startSimulatedBank({ provider: 'kbank', port: 0 });
    const noToken = await fetch(`${bank.url}/v1/verslip/kbank/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(verifyBody) });
    expect(noToken.status).toBe(401);

    const { access_token } = await json<{ access_token: string }>(await token(bank));
    const utcTime = await fetch(`${bank.url}/v1/verslip/kbank/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...verifyBody, rqDt: '2025-10-05T15:10:00Z' }),
    });
    expect(utcTime.status).toBe(400);
  });

  it('fails the configured share of verify calls with HTTP 500', async () => {
    const rolls = [0.01, 0.9, 0.02, 0.5];
    bank = await startSimulatedBank({ provider: 'kbank', port: 0, errorRate: 0.05, random: () => rolls.shift() ?? 0.9 });
    const { access_token } = await json<{ access_token: string }>(await token(bank));
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${bank.url}/v1/verslip/kbank/verify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify(verifyBody),
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([500, 200, 500, 200]);
  });

  it('publishes the configured share of transactions late: the same ones every time, "not found" until the delay after first asked', async () => {
    let clock = Date.parse('2026-11-28T10:00:00Z');
    bank = await startSimulatedBank({ provider: 'kbank', port: 0, behavior: { lateShare: 0.5, lateSeconds: 60 }, now: () => clock });
    const { access_token } = await json<{ access_token: string }>(await token(bank));
    const codeOf = async (transRef: string) => {
      const res = await fetch(`${bank!.url}/v1/verslip/kbank/verify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...verifyBody, data: { sendingBank: '004', transRef } }),
      });
      expect(res.status).toBe(200);
      return (await json<{ statusCode: string }>(res)).statusCode;
    };
    const refs = Array.from({ length: 40 }, (_, i) => `01527812142${String(i).padStart(2, '0')}BTF0571`);
    const first = await Promise.all(refs.map(codeOf));
    const late = refs.filter((_, i) => first[i] === '8404');
    expect(new Set(first)).toEqual(new Set(['0000', '8404']));
    expect(late.length).toBeGreaterThan(10);
    expect(late.length).toBeLessThan(30);

    clock += 59_000;
    expect(await Promise.all(refs.map(codeOf))).toEqual(first);
    clock += 1_000;
    expect(new Set(await Promise.all(late.map(codeOf)))).toEqual(new Set(['0000']));
    // The delay runs from the first question about each transaction, not from the bank's start.
    const newcomers = refs.map((r) => r.replace('BTF', 'KPS'));
    const firstAsked = await Promise.all(newcomers.map(codeOf));
    expect(firstAsked).toContain('8404');
    clock += 60_000;
    expect(new Set(await Promise.all(newcomers.map(codeOf)))).toEqual(new Set(['0000']));
  });

  it('answers a sandbox --outcome late slip "not found" until its time, then a success', async () => {
    let clock = Date.parse('2026-11-28T10:00:00Z');
    bank = await startSimulatedBank({ provider: 'kbank', port: 0, now: () => clock });
    const { access_token } = await json<{ access_token: string }>(await token(bank));
    const qr = parseSlipQr(sandboxQr({ outcome: 'late', afterSeconds: 2, now: clock, amount: 42 }));
    if (!qr.ok) throw new Error(qr.reason);
    const ask = async () => {
      const res = await fetch(`${bank!.url}/v1/verslip/kbank/verify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...verifyBody, data: { sendingBank: qr.slip.sendingBank, transRef: qr.slip.transRef } }),
      });
      return json<{ statusCode: string; data?: { amount: number } }>(res);
    };
    expect(await ask()).toMatchObject({ statusCode: '8404' });
    clock += 1_999;
    expect(await ask()).toMatchObject({ statusCode: '8404' });
    clock += 1;
    expect(await ask()).toMatchObject({ statusCode: '0000', data: { amount: 42 } });
  });
});

describe('simulated SCB', () => {
  it('issues a token for the application key and secret and verifies with it', async () => {
    bank = await startSimulatedBank({ provider: 'scb', port: 0 });
    const { id: apiKey, secret: apiSecret } = bank.credentials;
    const headers = { resourceOwnerId: apiKey, requestUId: uuid, 'accept-language': 'EN', 'content-type': 'application/json' };
    const refused = await fetch(`${bank.url}/v1/oauth/token`, { method: 'POST', headers, body: JSON.stringify({ applicationKey: apiKey, applicationSecret: 'wrong' }) });
    expect(refused.status).toBe(401);

    const issued = await json<{ data: { accessToken: string } }>(
      await fetch(`${bank.url}/v1/oauth/token`, { method: 'POST', headers, body: JSON.stringify({ applicationKey: apiKey, applicationSecret: apiSecret }) }),
    );
    expect(issued).toMatchObject({ status: { code: 1000 }, data: { accessToken: expect.any(String), expiresIn: 3600 } });

    const url = `${bank.url}/v1/payment/billpayment/transactions/015278121420BTF05718?sendingBank=014`;
    const verifyHeaders = { authorization: `Bearer ${issued.data.accessToken}`, resourceOwnerId: apiKey, requestUId: uuid, 'accept-language': 'EN' };
    const res = await fetch(url, { headers: verifyHeaders });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ status: { code: 1000 }, data: { transRef: '015278121420BTF05718', sendingBank: '014', amount: expect.stringMatching(/^\d+\.\d\d$/) } });

    const { resourceOwnerId: _omit, ...withoutOwner } = verifyHeaders;
    expect((await fetch(url, { headers: withoutOwner })).status).toBe(401);
  });
});

describe('slipgate simulate-bank', () => {
  function program(): Command {
    const p = new Command('slipgate').exitOverride();
    p.configureOutput({ writeErr: () => {}, writeOut: () => {} });
    registerSimulateBankCommand(p);
    return p;
  }

  it('requires a known provider', async () => {
    await expect(program().parseAsync(['simulate-bank'], { from: 'user' })).rejects.toThrow(/--provider/);
    await expect(program().parseAsync(['simulate-bank', '--provider', 'bbl'], { from: 'user' })).rejects.toThrow(/Allowed choices are kbank, scb/);
  });

  it('starts with the late share and delay it was given', async () => {
    const lines: string[] = [];
    bank = await simulateBank({ provider: 'scb', port: '0', host: '127.0.0.1', latencyMs: '0', errorRate: '0', lateShare: '0.2', lateSeconds: '90' }, (line) => lines.push(line));
    expect(bank.state.behavior).toMatchObject({ lateShare: 0.2, lateSeconds: 90 });
    expect(lines).toContain('late share 0.2: those transactions are "not found" for 90 s after first asked about');
  });

  it('checks its numbers before starting', async () => {
    await expect(program().parseAsync(['simulate-bank', '--provider', 'kbank', '--error-rate', '5'], { from: 'user' })).rejects.toThrow(InputError);
    await expect(program().parseAsync(['simulate-bank', '--provider', 'kbank', '--late-share', '1.5'], { from: 'user' })).rejects.toThrow('--late-share must be a number from 0 to 1');
    await expect(program().parseAsync(['simulate-bank', '--provider', 'kbank', '--late-seconds', 'soon'], { from: 'user' })).rejects.toThrow('--late-seconds must be a whole number');
    await expect(program().parseAsync(['simulate-bank', '--provider', 'scb', '--port', 'http'], { from: 'user' })).rejects.toThrow(
      '--port must be a whole number from 0 to 65535',
    );
  });
});

describe('simulate-bank for the slip APIs', () => {
  it('starts EasySlip with a chosen answer and quota, and its entry reaches it', async () => {
    const lines: string[] = [];
    bank = await simulateBank(
      { provider: 'easyslip', port: '0', host: '127.0.0.1', latencyMs: '0', errorRate: '0', answer: 'pending', quota: '7' },
      (line) => lines.push(line),
    );
    expect(lines).toContain('every verify call answers pending');
    expect(bank.state.behavior).toMatchObject({ answer: 'pending', quota: 7 });
    const entry = JSON.parse(lines.at(-1)!.trim().replace(/^UPSTREAMS='/, '').replace(/'$/, '')) as [{ apiKey: string; baseUrl: string }];
    const info = await fetch(`${entry[0].baseUrl}/v2/info`, { headers: { authorization: `Bearer ${entry[0].apiKey}` } });
    expect(await json(info)).toMatchObject({ success: true, data: { application: { quota: { remaining: 7 } } } });
  });

  it('refuses an answer it does not know', async () => {
    await expect(simulateBank({ provider: 'slip2go', port: '0', host: '127.0.0.1', latencyMs: '0', errorRate: '0', answer: 'maybe' }, () => {})).rejects.toThrow(InputError);
  });

  it('speaks Slip2Go on the documented paths: the QR text in payload.qrCode, result codes with HTTP 200', async () => {
    bank = await startSimulatedBank({ provider: 'slip2go', port: 0 });
    const qr = '0041000600000101030040220014242082547BPM049885102TH9104';
    const asked = (body: unknown, auth = `Bearer ${bank!.credentials.secret}`) =>
      fetch(`${bank!.url}/api/verify-slip/qr-code/info`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const found = await asked({ payload: { qrCode: slipQr('004', '014242082547BPM04988') } });
    expect(found.status).toBe(200);
    expect(await json(found)).toMatchObject({ code: '200000', data: { transRef: '014242082547BPM04988', dateTime: expect.stringMatching(/Z$/), amount: expect.any(Number) } });
    expect((await asked({ payload: { qrCode: qr } }, 'Bearer wrong')).status).toBe(401);
    expect(await json(await asked({ payload: { qrCode: 'not a slip' } }))).toMatchObject({ code: '400001' });
  });
});
