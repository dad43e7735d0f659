// Registered receivers and the receiver policy, black-box on every engine:
// the CLI registers a receiver and sets the policy (another process, so the
// server reads changes with no key cache), the sandbox pays it or someone
// else, and the public route answers success, 1025 or checks.receiver.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/engines.js';
import { startGraphqlApp, type GraphqlTestApp } from '../graphql/helpers.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const exec = promisify(execFile);
const REFUSED = { status: 'error', code: 1025, message: 'receiver not registered' };

// Each case runs the CLI a dozen times as its own process: seconds each on a busy machine.
describe.each(testEngines())('registered receivers on %s', { timeout: 120_000 }, (engine) => {
  let app: GraphqlTestApp;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await engine.databaseUrl();
    app = await startGraphqlApp({ databaseUrl, env: { API_KEY_CACHE_TTL_MS: '0' } });
  });
  afterAll(async () => {
    await app?.stop();
    await engine.dispose();
  });

  const slipgate = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await exec(process.execPath, [...SLIPGATE_CLI, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' } });
      return { code: 0, stdout: stdout.trim(), stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout.trim(), stderr: e.stderr };
    }
  };
  const verify = async (apiKey: string, qrcode: string) => {
    const res = await fetch(`${app.publicUrl}/api/v1/verify`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify({ qrcode }) });
    return { status: res.status, credits: res.headers.get('x-credits-remaining'), body: (await res.json()) as Record<string, unknown> };
  };

  it('require: a slip paid to the registered receiver is verified, one paid elsewhere is refused with 1025, free and recorded; report shows checks.receiver', async () => {
    const { accountId, apiKey } = await app.account(10);

    // `require` with nothing registered is refused, and changes nothing.
    const early = await slipgate('accounts', 'update', accountId, '--receiver-policy', 'require');
    expect(early.code).not.toBe(0);
    expect(early.stderr).toMatch(/require needs at least one active registered receiver/);
    expect((await app.store.getAccount(accountId))?.receiverPolicy).toBe('off');

    const added = await slipgate('receivers', 'add', accountId, '--bank', '004', '--account', '123-4-56789-0', '--name', 'บจก. ร้านกาแฟ ดีดี', '--label', 'หน้าร้าน');
    expect(added.code).toBe(0);
    const receiverId = added.stdout;
    expect(receiverId).toMatch(/^rcv_[0-9a-f]{32}$/);
    const set = await slipgate('accounts', 'update', accountId, '--receiver-policy', 'require', '--json');
    expect(JSON.parse(set.stdout)).toEqual({ accountId, receiverPolicy: 'require' });

    const paid = await slipgate('sandbox', 'qr', '--receiver', receiverId, '--amount', '250');
    expect(paid.code).toBe(0);
    const ok = await verify(apiKey, paid.stdout);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'success', data: { receiverBankCode: '004', amount: 250 } });
    expect(ok.body.checks).toEqual({ receiver: { passed: true, policy: 'require', receiverId, label: 'หน้าร้าน', matchedBy: ['account', 'name'] } });
    expect(ok.credits).toBe('9');

    const elsewhere = await slipgate('sandbox', 'qr', '--receiver-account', '987-6-54321-0', '--receiver-bank', '004', '--receiver-name', 'นาย ผู้อื่น');
    const refused = await verify(apiKey, elsewhere.stdout);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(REFUSED);
    expect(refused.credits).toBe('9');
    expect((await app.store.getAccount(accountId))?.credits).toBe(9);
    const failures = await app.store.listRequestErrors({ accountId, limit: 10 });
    expect(failures.items).toHaveLength(1);
    expect(failures.items[0]).toMatchObject({ kind: 'receiver_not_registered', upstream: 'sandbox' });
    expect(failures.items[0]!.message).toBe('receiver not registered: the bank named นาย ผู้อื่น, account xxx-x-x4321-x at 004');
    const audit = await slipgate('audit', 'list', '--account', accountId, '--json');
    expect(audit.stdout).toContain('receiver_not_registered');

    const report = await slipgate('accounts', 'update', accountId, '--receiver-policy', 'report');
    expect(report.code).toBe(0);
    const reported = await verify(apiKey, elsewhere.stdout);
    expect(reported.body).toMatchObject({ status: 'success', checks: { receiver: { passed: false, policy: 'report', receiverId: null, label: null, matchedBy: [] } } });

    // `off`: the answer is the contract's again, no checks at all.
    await slipgate('accounts', 'update', accountId, '--receiver-policy', 'off');
    const plain = await verify(apiKey, paid.stdout);
    expect(Object.keys(plain.body)).toEqual(['status', 'data', 'message', 'qrcode']);
  });

  it('judges a picture of a slip like its QR text', async () => {
    const { accountId, apiKey } = await app.account(3);
    const receiverId = (await slipgate('receivers', 'add', accountId, '--bank', '030', '--account', '0200-1234-5678', '--name', 'ร้านกาแฟ ดีดี')).stdout;
    await slipgate('accounts', 'update', accountId, '--receiver-policy', 'require');
    const picture = async (qrcode: string) => {
      const png = await QRCode.toBuffer(qrcode, { type: 'png', width: 300, margin: 4 });
      const res = await fetch(`${app.publicUrl}/api/v1/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify({ image: png.toString('base64') }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const paid = await picture((await slipgate('sandbox', 'qr', '--receiver', receiverId)).stdout);
    expect(paid.body).toMatchObject({ status: 'success', data: { receiverBankCode: '030' }, checks: { receiver: { passed: true, receiverId } } });
    const elsewhere = await picture((await slipgate('sandbox', 'qr', '--receiver-bank', '030', '--receiver-account', '020098765432')).stdout);
    expect(elsewhere).toEqual({ status: 400, body: REFUSED });
    expect((await app.store.listRequestErrors({ accountId, limit: 5 })).items.map((e) => e.kind)).toEqual(['receiver_not_registered']);
  });

  it('pays a PromptPay receiver; lists and removes receivers, keeping the last active one of a require account', async () => {
    const { accountId, apiKey } = await app.account(5);
    const pp = await slipgate('receivers', 'add', accountId, '--promptpay', '+66 81 234 5678', '--name', 'DEEDEE COFFEE', '--json');
    const record = JSON.parse(pp.stdout) as Record<string, unknown>;
    expect(record).toMatchObject({ accountId, kind: 'promptpay', bankCode: null, number: '0812345678', proxyType: 'MSISDN', nameTh: 'DEEDEE COFFEE', active: true });
    await slipgate('accounts', 'update', accountId, '--receiver-policy', 'require');

    const ok = await verify(apiKey, (await slipgate('sandbox', 'qr', '--receiver', String(record.id))).stdout);
    expect(ok.body).toMatchObject({ status: 'success', data: { receiverProxyType: 'MSISDN' }, checks: { receiver: { passed: true, receiverId: record.id, matchedBy: ['account', 'name'] } } });

    const last = await slipgate('receivers', 'remove', String(record.id));
    expect(last.code).not.toBe(0);
    expect(last.stderr).toMatch(/cannot remove the last active receiver/);
    const listed = JSON.parse((await slipgate('receivers', 'list', accountId, '--json')).stdout) as { receiverPolicy: string; receivers: { id: string }[] };
    expect(listed.receiverPolicy).toBe('require');
    expect(listed.receivers.map((r) => r.id)).toEqual([record.id]);

    await slipgate('accounts', 'update', accountId, '--receiver-policy', 'off');
    expect((await slipgate('receivers', 'remove', String(record.id))).code).toBe(0);
    expect(await app.store.listReceivers(accountId)).toEqual([]);
    const events = await app.store.listAdminEvents({ targetId: accountId, limit: 10 });
    expect(events.items.map((e) => e.action)).toEqual(['removeReceiver', 'setReceiverPolicy', 'setReceiverPolicy', 'addReceiver']);
    expect(events.items[0]!.actor).toMatch(/^cli:/);
  });
});
