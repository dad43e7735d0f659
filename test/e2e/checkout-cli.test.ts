// `slipgate payments create` prints the request's checkout link (the same
// the API answers), or says what is missing; `payments checkout-secret`
// prints the secret the return signature is made with; `sandbox qr --png`
// writes a slip picture the page reads.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutLinks } from '../../src/domain/payments/checkout-link.js';
import { decodeSlipImage } from '../../src/slip-image/decode-image.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { tempDir } from '../helpers/temp.js';
import { call, PATH, shop, type Shop } from '../payments/helpers.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const exec = promisify(execFile);
const SECRETS_KEY = 'f'.repeat(64);
const PUBLIC_URL = 'https://pay.example.com';

describe('checkout from the command line', () => {
  const dir = tempDir();
  const databaseUrl = `sqlite:${join(dir.path, 'cli.db')}`;
  let app: TestApp;
  let merchant: Shop;
  beforeAll(async () => {
    app = await startApp({ databaseUrl, env: { SECRETS_KEY, PUBLIC_URL } });
    merchant = await shop(app, 5);
  });
  afterAll(async () => {
    await app?.stop();
    dir.remove();
  });

  const slipgate = async (env: Record<string, string>, ...args: string[]) => {
    try {
      const { stdout } = await exec(process.execPath, [...SLIPGATE_CLI, ...args], { cwd: dir.path, env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', ...env } });
      return { code: 0, stdout: stdout.trim(), stderr: '' };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout.trim(), stderr: e.stderr };
    }
  };

  it('creates a request and prints its checkout link, the one the API answers', async () => {
    const made = await slipgate({ SECRETS_KEY, PUBLIC_URL }, 'payments', 'create', merchant.accountId, '--amount', '45.25', '--reference', 'cli-1');
    expect(made.code).toBe(0);
    const link = /Checkout link: (\S+)/.exec(made.stdout)?.[1];
    const answer = (await call(app, 'GET', `${PATH}?reference=cli-1`, merchant.apiKey)).body.data;
    expect(answer.amount).toBe(45.25);
    expect(link).toBe(answer.checkoutUrl);
    const without = await slipgate({ SECRETS_KEY: '', PUBLIC_URL: '' }, 'payments', 'create', merchant.accountId, '--amount', '45.25', '--reference', 'cli-1');
    expect(without.stdout).toContain('No checkout link: SECRETS_KEY is not set');
    const bad = await slipgate({}, 'payments', 'create', merchant.accountId, '--amount', 'ten', '--reference', 'cli-2');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--amount must be a positive number');
  });

  it('prints the account checkout secret, and writes a slip picture', async () => {
    const secret = await slipgate({ SECRETS_KEY }, 'payments', 'checkout-secret', merchant.accountId);
    expect(secret.stdout).toBe(checkoutLinks({ secretsKey: Buffer.from(SECRETS_KEY, 'hex') }).accountSecret(merchant.accountId));
    expect((await slipgate({ SECRETS_KEY: '' }, 'payments', 'checkout-secret', merchant.accountId)).code).not.toBe(0);
    const made = (await call(app, 'GET', `${PATH}?reference=cli-1`, merchant.apiKey)).body.data;
    const qr = await slipgate({}, 'sandbox', 'qr', '--pays', made.id, '--png', 'slip.png');
    expect(await decodeSlipImage(readFileSync(join(dir.path, 'slip.png')))).toBe(qr.stdout);
  });
});
