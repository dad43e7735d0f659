// `slipgate restore` while a server starts on the same database. Restore
// holds the live file exclusively from its lease check until its copy has
// taken the name; the test freezes it (SIGSTOP) while it holds that lock
// (seen in /proc/locks), starts a real `slipgate serve`, waits until the
// server has the old file open, and lets the restore finish. The server
// must then serve the restored file (or refuse to start), and the file kept
// as `.before-restore-*` must stay as the restore left it (rollback-journal
// mode, no lease, no charge of the server).
// The backup predates an erasure: the restore re-applies it, so the erased
// sender's name is in no byte of the restored database.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { AdminActions } from '../../src/domain/admin/actions.js';
import { openStore } from '../../src/store/open.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { postVerify, spawnSlipgate, type Child } from '../helpers/child.js';
import { ERASED_NAME, seedVerifications } from '../helpers/seed-verifications.js';
import { sqliteRow, sqliteRows } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const RECORDS = 20_000;
/** The last of SQLite's shared-lock bytes: a process holding a write lock up to it holds the file EXCLUSIVE. */
const SHARED_BYTES_END = 1073742335;

function holdsExclusive(pid: number, ino: number): boolean {
  const line = new RegExp(`\\bWRITE\\s+${pid}\\s+\\S+:${ino}\\s+\\d+\\s+${SHARED_BYTES_END}\\b`);
  return readFileSync('/proc/locks', 'utf8').split('\n').some((l) => line.test(l));
}

function hasOpen(pid: number, ino: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return statSync(`/proc/${pid}/fd/${fd}`).ino === ino;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/** Checks every millisecond until `check` holds or `stop` says it never will. */
async function until(check: () => boolean, stop: () => boolean): Promise<boolean> {
  for (;;) {
    if (check()) return true;
    if (stop()) return check();
    await new Promise((r) => setTimeout(r, 1));
  }
}

describe('restore against a server that starts meanwhile', () => {
  const dir = tempDir();
  const live = join(dir.path, 'live.db');
  const url = `sqlite:${live}`;
  const backup = join(dir.path, 'backup.db');
  const procs: ChildProcess[] = [];
  afterAll(() => {
    for (const p of procs) p.kill('SIGKILL');
    dir.remove();
  });

  it('the server serves the restored file (or refuses), never the kept one; the erasure made after the backup is re-applied', { timeout: 240_000 }, async () => {
    const store = await openStore(url);
    const { account, apiKey } = await new AccountService(store).createAccount({ name: 'ร้านกู้คืน', credits: RECORDS + 1000, actor: 'test' });
    await store.close();
    seedVerifications(live, account.id, RECORDS);
    const run = (args: string[]) => spawn(process.execPath, [...SLIPGATE_CLI, ...args], { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const made = run(['backup', '--to', backup]);
    expect((await once(made, 'exit'))[0]).toBe(0);

    // The erasure request comes after the backup.
    const erasing = await openStore(url);
    const erased = await new AdminActions({ store: erasing, accounts: new AccountService(erasing) }).erasePersonalData('cli:dpo', account.id, 'PDPA request 42');
    expect(erased.redacted).toBe(RECORDS);
    await erasing.close();

    const old = statSync(live).ino;
    const restore = run(['restore', '--from', backup]);
    procs.push(restore);
    let restoreOut = '';
    restore.stdout!.on('data', (d: Buffer) => (restoreOut += d.toString()));
    restore.stderr!.on('data', (d: Buffer) => (restoreOut += d.toString()));
    const restored = once(restore, 'exit');
    // Frozen while it holds the live file: today's restore never holds it, and finishes first.
    expect(await until(() => holdsExclusive(restore.pid!, old), () => restore.exitCode !== null)).toBe(true);
    restore.kill('SIGSTOP');

    let server: ChildProcess | undefined;
    const starting = spawnSlipgate({ DATABASE_URL: url }, (proc) => {
      server = proc;
      procs.push(proc);
    });
    const started = starting.then(
      (child) => ({ child }),
      (error: Error) => ({ error }),
    );
    // The server has the old file open: it started before the rename.
    expect(await until(() => hasOpen(server!.pid!, old), () => server!.exitCode !== null)).toBe(true);
    restore.kill('SIGCONT');
    expect((await restored)[0]).toBe(0);
    expect(restoreOut).toMatch(new RegExp(`Erasure of ${account.id} from \\S+ re-applied`));

    const kept = readdirSync(dir.path).find((f) => f.startsWith('live.db.before-restore-'));
    expect(kept).toBeDefined();
    const keptFile = join(dir.path, kept!);
    expect(statSync(keptFile).ino).toBe(old);
    expect(statSync(live).ino).not.toBe(old);

    const outcome = await started;
    let child: Child | undefined;
    if ('child' in outcome) {
      // It waited for the lock, saw the path name another file, and opened that one.
      child = outcome.child;
      const answer = await postVerify(child.publicUrl, apiKey.secret, sandboxQr());
      expect(answer.body.status).toBe('success');
      const id = (answer.body as unknown as { data: { transactionId: string } }).data.transactionId;
      expect(sqliteRow(live, 'SELECT count(*) AS n FROM verify_transactions WHERE transaction_id = ?', id)).toEqual({ n: 1 });
      // Its lease is in the restored file too: the file it serves.
      expect(sqliteRow(live, 'SELECT count(*) AS n FROM instance_leases WHERE expires_at >= ?', Date.now())).toEqual({ n: 1 });
    } else {
      // Or it gave up waiting and said so.
      expect(outcome.error.message).toMatch(/exited \(\d+\) before listening: .*(database is locked|was replaced)/s);
    }
    // The kept file is as the restore left it: still in rollback-journal mode (header bytes 18 and 19: a
    // server that opened it would have switched it to WAL, 2 and 2), no lease, no verification of the server.
    expect([...readFileSync(keptFile).subarray(18, 20)]).toEqual([1, 1]);
    expect(sqliteRow(keptFile, 'SELECT count(*) AS n FROM instance_leases')).toEqual({ n: 0 });
    expect(sqliteRow(keptFile, 'SELECT count(*) AS n FROM verify_transactions')).toEqual({ n: RECORDS });
    expect(existsSync(`${keptFile}-wal`)).toBe(false);

    // The erasure: the records redacted again, its event back, the name in no byte of the restored file.
    expect(sqliteRow(live, 'SELECT count(*) AS n FROM verify_transactions WHERE account_id = ? AND redacted_at IS NULL AND transaction_id LIKE ?', account.id, 'SEED%')).toEqual({ n: 0 });
    const events = sqliteRows(live, "SELECT actor, reason FROM admin_events WHERE action = 'erasePersonalData' AND target_id = ?", account.id);
    expect(events).toEqual([{ actor: 'cli:dpo', reason: 'PDPA request 42' }]);
    for (const file of [live, `${live}-wal`]) {
      if (existsSync(file)) expect(readFileSync(file).includes(Buffer.from(ERASED_NAME))).toBe(false);
    }
    if (child) {
      child.proc.kill('SIGTERM');
      expect(await child.exited).toBe(0);
    }
  });
});
