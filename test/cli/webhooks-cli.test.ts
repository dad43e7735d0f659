// `slipgate webhooks add|list|remove` as a real process against a real
// SQLite file: the secret printed once and stored sealed under SECRETS_KEY,
// bad URLs refused with nothing written, and every change in the admin
// event trail with the operator as actor.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { secretBox } from '../../src/domain/secret-box.js';
import { sqliteRows } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const run = promisify(execFile);

describe('slipgate webhooks', () => {
  const dir = tempDir();
  const file = join(dir.path, 'hooks-cli.db');
  const key = randomBytes(32);
  afterAll(() => dir.remove());

  const slipgate = (...args: string[]) => slipgateWith({}, ...args);
  const slipgateWith = async (extraEnv: Record<string, string>, ...args: string[]) => {
    const env = { ...process.env, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent', SECRETS_KEY: key.toString('hex'), ADMIN_PORT: '3901', ...extraEnv };
    try {
      const { stdout, stderr } = await run(process.execPath, [...SLIPGATE_CLI, ...args], { env });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const rows = (sql: string) => sqliteRows(file, sql);

  it('adds an endpoint, prints its secret once, keeps it sealed, lists without it and removes it', { timeout: 90_000 }, async () => {
    const { accountId } = JSON.parse((await slipgate('accounts', 'create', '--name', 'Hook Shop', '--credits', '1', '--json')).stdout) as { accountId: string };

    const added = await slipgate('webhooks', 'add', accountId, '--url', 'https://shop.example/hooks', '--events', 'verification.succeeded', '--reason', 'go live', '--json');
    expect(added.code).toBe(0);
    const endpoint = JSON.parse(added.stdout) as { id: string; url: string; events: string[]; secret: string };
    expect(endpoint).toMatchObject({ id: expect.stringMatching(/^whe_/), url: 'https://shop.example/hooks', events: ['verification.succeeded'] });
    expect(endpoint.secret).toMatch(/^whsec_/);
    // Stored sealed, not in clear, and usable: SECRETS_KEY opens it back.
    const stored = rows('SELECT * FROM webhook_endpoints');
    expect(JSON.stringify(stored)).not.toContain(endpoint.secret.slice(6));
    expect(secretBox(key).open(String(stored[0]!.secret))).toBe(endpoint.secret);

    const listed = await slipgate('webhooks', 'list', accountId, '--json');
    expect(JSON.parse(listed.stdout)).toEqual([{ id: endpoint.id, accountId, url: 'https://shop.example/hooks', events: ['verification.succeeded'], createdAt: expect.any(String), removedAt: null }]);
    const table = await slipgate('webhooks', 'list', accountId);
    expect(table.stdout).toContain(endpoint.id);
    expect(listed.stdout + table.stdout).not.toContain('whsec_');

    const removed = await slipgate('webhooks', 'remove', endpoint.id, '--reason', 'shop closed');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`Webhook endpoint ${endpoint.id} removed`);
    expect((await slipgate('webhooks', 'remove', endpoint.id)).stderr).toMatch(/webhook endpoint not found/);
    expect((await slipgate('webhooks', 'list', accountId)).stdout).toContain('No webhook endpoints');

    const trail = rows(`SELECT actor, action, target_id, reason FROM admin_events WHERE action LIKE '%Webhook%' ORDER BY created_at`);
    expect(trail).toEqual([
      { actor: expect.stringMatching(/^cli:/), action: 'addWebhookEndpoint', target_id: endpoint.id, reason: 'go live' },
      { actor: expect.stringMatching(/^cli:/), action: 'removeWebhookEndpoint', target_id: endpoint.id, reason: 'shop closed' },
    ]);
    expect(JSON.stringify(rows('SELECT * FROM admin_events'))).not.toContain('whsec_');
  });

  it('refuses bad input with a clear error and writes nothing', { timeout: 90_000 }, async () => {
    const { accountId } = JSON.parse((await slipgate('accounts', 'create', '--name', 'Careful Shop', '--json')).stdout) as { accountId: string };
    const refusals: [string[], RegExp][] = [
      [['--url', 'http://shop.example/hooks'], /must use https/],
      [['--url', 'https://me:pw@shop.example/hooks'], /user name or password/],
      [['--url', 'http://127.0.0.1:3901/graphql'], /admin listener/],
      [['--url', 'https://169.254.169.254/latest/meta-data/'], /link-local, cloud metadata or non-unicast address/],
      [['--url', 'https://metadata.google.internal/computeMetadata/v1/'], /link-local, cloud metadata or non-unicast address/],
      [['--url', 'https://[fd00:ec2::254]/latest/meta-data/'], /link-local, cloud metadata or non-unicast address/],
      [['--url', 'https://127.0.0.1:5432/'], /loopback or private network address \(allowed only with WEBHOOK_ALLOW_PRIVATE=true\)/],
      [['--url', 'https://10.0.0.5/hooks'], /loopback or private network address/],
      [['--url', 'http://localhost:4000/hooks'], /loopback or private network address/],
      [['--url', 'https://shop.example/hooks', '--events', 'payment.maybe'], /unknown event type "payment.maybe"/],
    ];
    for (const [args, message] of refusals) {
      const refused = await slipgate('webhooks', 'add', accountId, ...args);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(message);
    }
    const unknown = await slipgate('webhooks', 'add', 'acc_missing', '--url', 'https://shop.example/hooks');
    expect(unknown.stderr).toMatch(/account not found/);
    expect((await slipgate('webhooks', 'list', 'acc_missing')).stderr).toMatch(/account not found/);
    expect(rows(`SELECT * FROM webhook_endpoints WHERE account_id IN ('${accountId}', 'acc_missing')`)).toEqual([]);
  });

  it('accepts a private URL only with WEBHOOK_ALLOW_PRIVATE=true, and never a metadata one', { timeout: 90_000 }, async () => {
    const { accountId } = JSON.parse((await slipgate('accounts', 'create', '--name', 'Local Shop', '--json')).stdout) as { accountId: string };
    const allowed = { WEBHOOK_ALLOW_PRIVATE: 'true' };
    const local = await slipgateWith(allowed, 'webhooks', 'add', accountId, '--url', 'http://127.0.0.1:4000/hooks', '--json');
    expect(local.code).toBe(0);
    expect(JSON.parse(local.stdout)).toMatchObject({ url: 'http://127.0.0.1:4000/hooks' });
    const metadata = await slipgateWith(allowed, 'webhooks', 'add', accountId, '--url', 'https://169.254.169.254/latest/meta-data/');
    expect(metadata.code).not.toBe(0);
    expect(metadata.stderr).toMatch(/link-local, cloud metadata or non-unicast address/);
    expect(rows(`SELECT url FROM webhook_endpoints WHERE account_id = '${accountId}'`)).toEqual([{ url: 'http://127.0.0.1:4000/hooks' }]);
  });
});
