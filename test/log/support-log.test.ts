// The log answers a support call: one INFO line per verification (outcome,
// account, key, bank domain, latency, request id), money and key changes at
// INFO with who made them, and WARN/ERROR left for what an operator must
// look at. Read from the JSON log of a real `slipgate serve`.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeServices } from '../../src/compose-store.js';
import { openStore } from '../../src/store/open.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { eventually, spawnSlipgate, type Child } from '../helpers/child.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const exec = promisify(execFile);
const INFO = 30;
const WARN = 40;
const DEBUG = 20;

type Line = Record<string, unknown>;

describe('the log of a support call', { timeout: 120_000 }, () => {
  const dir = tempDir();
  const databaseUrl = `sqlite:${join(dir.path, 'slipgate.db')}`;
  let child: Child;
  let paying: { accountId: string; keyId: string; apiKey: string };
  let broke: { accountId: string; keyId: string; apiKey: string };
  let adminToken: { id: string; secret: string };

  beforeAll(async () => {
    const store = await openStore(databaseUrl);
    const { admin, adminTokens } = storeServices(store);
    const made = async (credits: number) => {
      const { account, apiKey } = await admin.createAccount('test', { name: 'Shop', credits });
      return { accountId: account.id, keyId: apiKey.key.id, apiKey: apiKey.secret };
    };
    paying = await made(5);
    broke = await made(0);
    const { token, secret } = await adminTokens.create({ name: 'somchai (support)', role: 'support', actor: 'test' });
    adminToken = { id: token.id, secret };
    await store.close();
    // DEBUG, so the test sees the lines that are kept out of INFO too.
    child = await spawnSlipgate({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'debug', LOG_FORMAT: 'json' });
  });
  afterAll(async () => {
    child?.proc.kill('SIGTERM');
    await child?.exited;
    dir.remove();
  });

  async function verify(apiKey: string, qrcode: string): Promise<{ requestId: string; body: { status: string; code?: number } }> {
    const res = await fetch(`${child.publicUrl}/api/v1/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ qrcode }),
    });
    return { requestId: res.headers.get('x-request-id')!, body: (await res.json()) as { status: string; code?: number } };
  }

  /** Every line of one request, once its line is written (just after the answer). */
  async function linesOf(requestId: string): Promise<Line[]> {
    await eventually(async () => child.logs.some((l) => l.requestId === requestId && (l.msg === 'verification' || l.msg === 'request')));
    return child.logs.filter((l) => l.requestId === requestId);
  }

  it('a verified slip is one INFO line with its outcome, account, key, bank domain, latency and request id', async () => {
    const { requestId, body } = await verify(paying.apiKey, sandboxQr());
    expect(body.status).toBe('success');
    const lines = await linesOf(requestId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: INFO,
      msg: 'verification',
      requestId,
      status: 200,
      outcome: 'verified',
      accountId: paying.accountId,
      keyId: paying.keyId,
      bank: 'sandbox',
    });
    expect(lines[0]!.ms).toEqual(expect.any(Number));
    expect(lines[0]!.bankMs).toEqual(expect.any(Number));
  });

  it('an account without credits (1023) is one INFO line naming the refusal and its code', async () => {
    const { requestId, body } = await verify(broke.apiKey, sandboxQr());
    expect(body.code).toBe(1023);
    const lines = await linesOf(requestId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: INFO, msg: 'verification', requestId, status: 400, outcome: 'insufficient_fund', code: 1023, accountId: broke.accountId, keyId: broke.keyId });
    expect(lines[0]!.ms).toEqual(expect.any(Number));
  });

  it("a slip the bank does not know is INFO, with the bank domain; nothing at WARN or above", async () => {
    const { requestId, body } = await verify(paying.apiKey, sandboxQr({ outcome: 'not-found' }));
    expect(body.status).toBe('error');
    const lines = await linesOf(requestId);
    const line = lines.find((l) => l.msg === 'verification');
    expect(line).toMatchObject({ level: INFO, requestId, status: 200, outcome: 'slip_not_found', accountId: paying.accountId, keyId: paying.keyId, bank: 'sandbox' });
    expect(line!.ms).toEqual(expect.any(Number));
    expect(lines.filter((l) => (l.level as number) >= WARN)).toEqual([]);
    // The bank attempt's own line is there for a developer, below INFO.
    expect(lines.filter((l) => l.msg === 'upstream verification failed').map((l) => l.level)).toEqual([DEBUG]);
  });

  it('a GraphQL top-up is an INFO line naming the admin token, the account and the amounts', async () => {
    const res = await fetch(`${child.adminUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken.secret}` },
      body: JSON.stringify({
        query: 'mutation ($id: ID!) { topUpCredits(accountId: $id, credits: 7, reason: "invoice 12", idempotencyKey: "inv-12") { __typename } }',
        variables: { id: paying.accountId },
      }),
    });
    const answer = (await res.json()) as { errors?: unknown };
    expect(answer.errors).toBeUndefined();
    await eventually(async () => child.logs.some((l) => l.msg === 'credits topped up'));
    const line = child.logs.find((l) => l.msg === 'credits topped up');
    expect(line).toMatchObject({
      level: INFO,
      action: 'topUpCredits',
      actor: `admin:${adminToken.id}:somchai (support)`,
      accountId: paying.accountId,
      delta: 7,
      balance: 11,
      reason: 'invoice 12',
      idempotencyKey: 'inv-12',
    });
  });

  it('a dashboard page load is logged at DEBUG, and a CLI key revocation at INFO with actor cli', async () => {
    const page = await fetch(`${child.adminUrl}/`);
    await page.text();
    await eventually(async () => child.logs.some((l) => l.msg === 'request' && l.path === '/'));
    expect(child.logs.filter((l) => l.msg === 'request' && l.path === '/').map((l) => l.level)).toEqual([DEBUG]);

    const { stderr } = await exec(process.execPath, [...SLIPGATE_CLI, 'keys', 'revoke', broke.keyId], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
    });
    const logged = stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Line);
    expect(logged).toContainEqual(
      expect.objectContaining({ level: INFO, msg: 'API key revoked', action: 'revokeApiKey', actor: expect.stringMatching(/^cli:/), targetId: broke.keyId, accountId: broke.accountId }),
    );
  });

  it('no line of all this carries a secret', () => {
    const all = child.logs.map((l) => JSON.stringify(l)).join('\n');
    for (const secret of [paying.apiKey, broke.apiKey, adminToken.secret]) expect(all).not.toContain(secret.slice(-24));
  });
});
