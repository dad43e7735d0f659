// The slip APIs' simulators (SlipOK, RDCW, EasySlip, Slip2Go) checked
// against the protocols as the providers' public sources write them, with
// plain fetch and literal paths:
// the adapters share no code with the simulators, and this keeps the
// simulators honest on their own.
import { afterEach, describe, expect, it } from 'vitest';
import { simulateBank } from '../../src/cli/simulate-bank.js';
import { slipQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startSimulatedBank, type SimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';

let bank: SimulatedBank | undefined;
afterEach(async () => {
  await bank?.close();
  bank = undefined;
});

const QR = slipQr('004', '014242082547BPM04988');
const json = async (res: Response) => JSON.parse(await res.text()) as Record<string, any>;

describe('simulated SlipOK', () => {
  const check = (b: SimulatedBank, body: unknown, key = b.credentials.secret, branch = b.credentials.id) =>
    fetch(`${b.url}/api/line/apikey/${branch}`, { method: 'POST', headers: { 'x-authorization': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('checks a slip QR for the branch and key, answering the documented record', async () => {
    bank = await startSimulatedBank({ provider: 'slipok', port: 0 });
    const res = await check(bank, { data: QR });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ success: true, data: { success: true, transRef: '014242082547BPM04988', sendingBank: '004', amount: expect.any(Number) } });
    const { transDate, transTime, transTimestamp } = body.data;
    expect(new Date(transTimestamp).getTime()).toBe(Date.parse(`${transDate.slice(0, 4)}-${transDate.slice(4, 6)}-${transDate.slice(6)}T${transTime}+07:00`));
    expect(bank.state.calls.providerChecks).toBe(0);
  });

  it('refuses with the documented codes: key, branch, no QR, not a slip; counts a request for its own checks', async () => {
    bank = await startSimulatedBank({ provider: 'slipok', port: 0 });
    const key = await check(bank, { data: QR }, 'wrong');
    expect([key.status, (await json(key)).code]).toEqual([401, 1002]);
    const branch = await check(bank, { data: QR }, bank.credentials.secret, '999');
    expect([branch.status, (await json(branch)).code]).toEqual([400, 1001]);
    expect((await json(await check(bank, {}))).code).toBe(1000);
    expect((await json(await check(bank, { data: 'https://example.com' }))).code).toBe(1008);
    await check(bank, { data: QR, amount: 100, log: true });
    expect(bank.state.calls.providerChecks).toBe(1);
  });

  it('answers the quota call without verifying, and 1010 with the delay it was given', async () => {
    bank = await startSimulatedBank({ provider: 'slipok', port: 0, behavior: { quota: 42, answer: 'pending', pendingMinutes: 4 } });
    const quota = await fetch(`${bank.url}/api/line/apikey/${bank.credentials.id}/quota`, { headers: { 'x-authorization': bank.credentials.secret } });
    expect(await json(quota)).toEqual({ success: true, data: { quota: 42, specialQuota: 0, overQuota: 0 } });
    expect(bank.state.calls.verify).toBe(0);
    const pending = await json(await check(bank, { data: QR }));
    expect(pending).toMatchObject({ success: false, code: 1010, data: { bankCode: '004', delay: 4 } });
  });
});

describe('simulated RDCW', () => {
  const inquiry = (b: SimulatedBank, body: unknown, path = '/v1/inquiry', auth = `${b.credentials.id}:${b.credentials.secret}`) =>
    fetch(b.url + path, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(auth).toString('base64')}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('answers an inquiry with HTTP Basic: valid, the slip flat, the quota, isCached', async () => {
    bank = await startSimulatedBank({ provider: 'rdcw', port: 0, behavior: { quota: 10 } });
    for (const path of ['/v1/inquiry', '/v2/inquiry']) {
      const res = await inquiry(bank, { payload: QR }, path);
      expect(res.status).toBe(200);
      expect(await json(res)).toMatchObject({
        discriminator: '004.014242082547BPM04988',
        valid: true,
        data: { transRef: '014242082547BPM04988', sendingBank: '004', amount: expect.stringMatching(/^\d+\.\d\d$/) },
        quota: { cost: 1, usage: expect.any(Number), limit: expect.any(Number) },
        isCached: false,
      });
    }
    const { quota } = await json(await inquiry(bank, { payload: QR }));
    expect(quota.limit - quota.usage).toBe(7);
  });

  it('refuses wrong credentials, a missing payload and a QR that is not a slip with their codes', async () => {
    bank = await startSimulatedBank({ provider: 'rdcw', port: 0 });
    expect((await inquiry(bank, { payload: QR }, '/v1/inquiry', 'someone:else')).status).toBe(401);
    const empty = await inquiry(bank, {});
    expect([empty.status, (await json(empty)).code]).toEqual([400, 0]);
    expect((await json(await inquiry(bank, { payload: 'hello' }))).code).toBe(10002);
    bank.state.behavior.answer = 'pending';
    expect((await json(await inquiry(bank, { payload: QR }))).code).toBe(20001);
  });
});

describe('slipgate simulate-bank for slip APIs', () => {
  it('starts with the answer, delay and quota it was given, and checks them', async () => {
    const lines: string[] = [];
    const flags = { provider: 'slipok', port: '0', host: '127.0.0.1', latencyMs: '0', errorRate: '0' };
    bank = await simulateBank({ ...flags, answer: 'pending', pendingMinutes: '3', quota: '5' }, (line) => lines.push(line));
    expect(bank.state.behavior).toMatchObject({ answer: 'pending', pendingMinutes: 3, quota: 5 });
    expect(lines).toContain('every verify call answers pending (ask again in 3 min)');
    expect(lines.some((l) => l.includes('"provider":"slipok"') && l.includes('"branchId":"1234"'))).toBe(true);
    await expect(simulateBank({ ...flags, answer: 'sometimes' }, () => {})).rejects.toThrow(/--answer must be one of/);
    await expect(simulateBank({ ...flags, quota: 'lots' }, () => {})).rejects.toThrow('--quota must be a whole number');
  });
});

describe('simulated EasySlip and Slip2Go', () => {
  it('starts EasySlip with a chosen answer and quota, and its entry reaches it', async () => {
    const lines: string[] = [];
    bank = await simulateBank(
      { provider: 'easyslip', port: '0', host: '127.0.0.1', latencyMs: '0', errorRate: '0', answer: 'pending', quota: '7' },
      (line) => lines.push(line),
    );
    expect(lines).toContain('every verify call answers pending (ask again in 1 min)');
    expect(bank.state.behavior).toMatchObject({ answer: 'pending', quota: 7 });
    const entry = JSON.parse(lines.at(-1)!.trim().replace(/^UPSTREAMS='/, '').replace(/'$/, '')) as [{ apiKey: string; baseUrl: string }];
    const info = await fetch(`${entry[0].baseUrl}/v2/info`, { headers: { authorization: `Bearer ${entry[0].apiKey}` } });
    expect(await json(info)).toMatchObject({ success: true, data: { application: { quota: { remaining: 7 } } } });
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
