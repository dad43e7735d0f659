// A one-shot command prints its own output and nothing else: no JSON log
// lines on stderr beside it (the store's and the services' INFO lines are
// for servers). The one line it adds is which database it used. LOG_LEVEL,
// when set, brings the log lines back (the operator asked for them); `serve`
// keeps its JSON lines. Real child processes, LOG_LEVEL unset as for a person
// at a terminal.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { slipgateCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

describe('one-shot commands print only their own output', () => {
  const dir = tempDir();
  const databaseUrl = `sqlite:${join(dir.path, 'quiet.db')}`;
  const env = { DATABASE_URL: databaseUrl, LOG_LEVEL: '', LOG_FORMAT: '' };
  const slipgate = slipgateCli(env);
  const databaseLine = `slipgate: using database ${databaseUrl} (from DATABASE_URL)\n`;
  afterAll(() => dir.remove());

  it('accounts create, receivers add, payments create and sandbox qr: stderr holds no log line', { timeout: 120_000 }, async () => {
    const created = await slipgate('accounts', 'create', '--name', 'Quiet shop', '--credits', '5', '--json');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toBe(databaseLine);
    const { accountId } = JSON.parse(created.stdout) as { accountId: string };

    const receiver = await slipgate('receivers', 'add', accountId, '--promptpay', '0812345678', '--name', 'QUIET SHOP');
    expect(receiver.code, receiver.stderr).toBe(0);
    expect(receiver.stderr).toBe(databaseLine);

    const [payment, topUp, qr] = await Promise.all([
      slipgate('payments', 'create', accountId, '--amount', '120', '--reference', 'quiet-1'),
      slipgate('accounts', 'top-up', accountId, '--credits', '3', '--reason', 'invoice 9'),
      slipgate('sandbox', 'qr', '--amount', '10'),
    ]);
    expect(payment.code, payment.stderr).toBe(0);
    expect(payment.stderr).toBe(databaseLine);
    expect(topUp.stderr).toBe(databaseLine);
    expect(qr.stderr).toBe('');
  });

  it('LOG_LEVEL set brings the change log back, as JSON lines on stderr', { timeout: 60_000 }, async () => {
    const logged = await slipgateCli({ ...env, LOG_LEVEL: 'info', LOG_FORMAT: 'json' })('accounts', 'create', '--name', 'Logged shop', '--json');
    expect(logged.code, logged.stderr).toBe(0);
    const lines = logged.stderr.split('\n').filter((l) => l.startsWith('{'));
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toContainEqual(expect.objectContaining({ level: 30, action: 'createAccount', msg: 'account created' }));
  });
});
