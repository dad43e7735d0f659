// `slipgate backup` of a SQLite database while a real `slipgate serve` child
// answers a steady load, and `slipgate restore` of that copy: the copy holds
// every success answered before the backup began, its pages are whole, its
// books reconcile; the load never notices; restore refuses while the server
// lives and, once it is stopped, puts the copy in place and serves from it.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { openStore } from '../../src/store/open.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { eventually, postVerify, spawnSlipgate, type Child } from '../helpers/child.js';
import { runDoctor } from '../helpers/doctor.js';
import { startLoad, untilAnswersIn, type Answer } from '../helpers/load.js';
import { sqliteRow, sqliteRows } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const exec = promisify(execFile);

async function slipgate(databaseUrl: string, ...args: string[]) {
  return slipgateIn(undefined, databaseUrl, ...args);
}

async function slipgateIn(cwd: string | undefined, databaseUrl: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [...SLIPGATE_CLI, ...args], { cwd, env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }, timeout: 60_000 });
    return { code: 0, stdout, stderr: withoutDatabaseLine(stderr) };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: withoutDatabaseLine(e.stderr) };
  }
}

/** Backup names its database first on stderr, like every command that opens one. */
function withoutDatabaseLine(stderr: string): string {
  return stderr.replace(/^slipgate: using database [^\n]*\n/, '');
}

const successIds = (answers: Answer[]) => answers.filter((a) => a.body?.status === 'success').map((a) => a.body.data.transactionId as string);

function transactionIdsIn(file: string): Set<string> {
  return new Set(sqliteRows<{ transaction_id: string }>(file, 'SELECT transaction_id FROM verify_transactions').map((r) => r.transaction_id));
}

describe('SQLite backup under load, and restore', () => {
  const dir = tempDir();
  const live = join(dir.path, 'live.db');
  const copy = join(dir.path, 'copy.db');
  const children: Child[] = [];
  afterAll(() => {
    for (const c of children) c.proc.kill('SIGKILL');
    dir.remove();
  });
  let apiKey = '';
  let answeredBeforeBackup: string[] = [];

  it('copies a serving database consistently without disturbing the load', { timeout: 180_000 }, async () => {
    const store = await openStore(`sqlite:${live}`);
    apiKey = (await new AccountService(store).createAccount({ name: 'ร้านสำรองข้อมูล', credits: 1_000_000, actor: 'test' })).apiKey.secret;
    await store.close();
    const server = await spawnSlipgate({ DATABASE_URL: `sqlite:${live}`, SANDBOX_LATENCY_MS: '2' });
    children.push(server);

    const load = startLoad({ publicUrl: server.publicUrl, apiKey, qrcode: () => sandboxQr(), workers: 4, deadlineMs: 30_000 });
    load.phase = 'before';
    await untilAnswersIn(load, 'before', 200, (a) => a.body?.status === 'success', 60_000);
    load.phase = 'during';
    // Every success answered by now was committed before the backup starts.
    answeredBeforeBackup = successIds(load.answers);
    const backup = await slipgate(`sqlite:${live}`, 'backup', '--to', copy);
    load.phase = 'after';
    await untilAnswersIn(load, 'after', 50, (a) => a.body?.status === 'success', 60_000);
    const answers = await load.stop();

    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.stdout).toContain('all accounts reconcile');
    // The load saw nothing but successes, during the backup too.
    expect(answers.filter((a) => a.body?.status !== 'success')).toEqual([]);
    expect(load.inPhase('during').length).toBeGreaterThan(0);

    expect(sqliteRows(copy, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    const inCopy = transactionIdsIn(copy);
    expect(answeredBeforeBackup.length).toBeGreaterThanOrEqual(200);
    expect(answeredBeforeBackup.filter((id) => !inCopy.has(id))).toEqual([]);
    // The live file went on past the copy: the copy is a snapshot, not the file later.
    expect(transactionIdsIn(live).size).toBeGreaterThan(inCopy.size);
    const doctor = await runDoctor(`sqlite:${copy}`);
    expect(doctor).toMatchObject({ code: 0, accounts: 1, discrepancies: [] });
    // Nothing but the copy was left beside it.
    expect(readdirSync(dir.path).filter((f) => f.startsWith('copy') || f.includes('partial'))).toEqual(['copy.db']);
  });

  it('no command writes over the live database under any name while the server verifies', { timeout: 180_000 }, async () => {
    const server = children[0]!;
    const link = join(dir.path, 'link.db');
    symlinkSync(live, link);
    const elsewhere = join(dir.path, 'elsewhere');
    mkdirSync(elsewhere);
    const before = { db: statSync(live).ino, wal: statSync(`${live}-wal`).ino };
    const load = startLoad({ publicUrl: server.publicUrl, apiKey, qrcode: () => sandboxQr(), workers: 2, deadlineMs: 30_000 });
    // [as typed, run from, the live file it is]
    const names: [string, string | undefined, string][] = [
      [live, undefined, live],
      [link, undefined, live],
      ['./live.db', dir.path, live],
      ['../live.db', elsewhere, live],
      [`${live}-wal`, undefined, `${live}-wal`],
      [`${live}-journal`, undefined, `${live}-journal`],
    ];
    for (const [name, cwd, file] of names) {
      const typed = join(cwd ?? '', name);
      for (const args of [['backup', '--to', name, '--force'], ['audit', 'export', '--out', name, '--force'], ['restore', '--from', name]]) {
        const r = await slipgateIn(cwd, `sqlite:${live}`, ...args);
        expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 2, stderr: `slipgate: refusing ${typed}: it is the live database file ${file}; choose a file outside the database's own\n` });
      }
    }
    await untilAnswersIn(load, load.phase, 20, (a) => a.body?.status === 'success', 60_000);
    const answers = await load.stop();
    expect(answers.filter((a) => a.body?.status !== 'success')).toEqual([]);
    // The same files, whole, still the server's.
    expect({ db: statSync(live).ino, wal: statSync(`${live}-wal`).ino }).toEqual(before);
    expect(existsSync(`${live}-journal`)).toBe(false);
    expect(readdirSync(dir.path).filter((f) => f.includes('partial') || f.includes('before-restore'))).toEqual([]);
    expect(sqliteRows(live, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
  });

  it('refuses to restore while the server is live, and leaves the live database alone', { timeout: 60_000 }, async () => {
    const server = children[0]!;
    const before = statSync(live).ino;
    const refused = await slipgate(`sqlite:${live}`, 'restore', '--from', copy);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/hold a live lease on .*live\.db.*stop every server/);
    expect(statSync(live).ino).toBe(before);
    expect(readdirSync(dir.path).filter((f) => f.includes('before-restore') || f.includes('partial'))).toEqual([]);
    // Still serving from the same file.
    expect((await postVerify(server.publicUrl, apiKey, sandboxQr())).body.status).toBe('success');
  });

  it('restores the copy into the stopped deployment, which then serves from it', { timeout: 120_000 }, async () => {
    const server = children[0]!;
    server.proc.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const afterBackup = transactionIdsIn(live);

    const restored = await slipgate(`sqlite:${live}`, 'restore', '--from', copy);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toMatch(/Restored .*live\.db from .*copy\.db: 1 accounts/);
    const kept = readdirSync(dir.path).find((f) => f.startsWith('live.db.before-restore-'));
    expect(kept).toBeDefined();
    // The kept file is the database as it was; the live path now holds the copy's books.
    expect(transactionIdsIn(join(dir.path, kept!))).toEqual(afterBackup);
    const now = transactionIdsIn(live);
    expect(answeredBeforeBackup.filter((id) => !now.has(id))).toEqual([]);
    expect(now.size).toBeLessThan(afterBackup.size);

    const again = await spawnSlipgate({ DATABASE_URL: `sqlite:${live}` });
    children.push(again);
    const answer = await postVerify(again.publicUrl, apiKey, sandboxQr());
    expect(answer.body.status).toBe('success');
    // Holds that were open in the copy belong to no live process: the new server recovers them.
    await eventually(async () => sqliteRow<{ n: number }>(live, 'SELECT count(*) AS n FROM credit_holds')?.n === 0, 30_000);
    again.proc.kill('SIGTERM');
    expect(await again.exited).toBe(0);
    expect(await runDoctor(`sqlite:${live}`)).toMatchObject({ code: 0, accounts: 1, discrepancies: [], openHolds: 0 });
    expect(existsSync(`${live}-wal`)).toBe(false);
  });
});
