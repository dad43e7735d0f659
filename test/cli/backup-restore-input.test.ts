// Bad input to `slipgate backup` and `slipgate restore`: a clear one-line
// error, exit 2, the existing files byte for byte as they were and no
// partial file left behind.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/domain/accounts.js';
import { openStore } from '../../src/store/open.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { tempDir } from '../helpers/temp.js';

const exec = promisify(execFile);
const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;

/** Runs the CLI; `fileSizeLimitKb` caps the size of any file it writes (ulimit -f), like a disk that runs out. */
async function slipgate(databaseUrl: string, args: string[], fileSizeLimitKb?: number) {
  const node = [process.execPath, '--import', 'tsx', CLI, ...args];
  const [cmd, argv] = fileSizeLimitKb ? ['bash', ['-c', `ulimit -f ${fileSizeLimitKb}; exec "$@"`, 'bash', ...node]] : [node[0]!, node.slice(1)];
  try {
    const { stdout, stderr } = await exec(cmd as string, argv as string[], { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const partials = (folder: string) => readdirSync(folder).filter((f) => f.includes('partial') || f.endsWith('-wal') || f.endsWith('-journal'));

describe('backup and restore refuse bad input and leave files as they were', () => {
  const dir = tempDir();
  const live = join(dir.path, 'live.db');
  const url = `sqlite:${live}`;
  const good = join(dir.path, 'good.db');
  afterAll(() => dir.remove());

  beforeAll(async () => {
    const store = await openStore(url);
    const accounts = new AccountService(store);
    // Enough rows that the file outgrows the small size limit below.
    for (let i = 0; i < 40; i++) await accounts.createAccount({ name: `ร้านที่ ${i} ${'ก'.repeat(150)}`, credits: 10 + i, actor: 'test' });
    await store.close();
    expect((await slipgate(url, ['backup', '--to', good])).code).toBe(0);
  }, 60_000);

  it('backup: an existing target is refused without --force and kept as it was', { timeout: 60_000 }, async () => {
    const before = sha(good);
    const r = await slipgate(url, ['backup', '--to', good]);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe(`slipgate: ${good} already exists; choose a new name or pass --force to replace it\n`);
    expect(sha(good)).toBe(before);
  });

  it('backup: a folder as target is refused', { timeout: 60_000 }, async () => {
    const folder = join(dir.path, 'folder');
    mkdirSync(folder);
    const r = await slipgate(url, ['backup', '--to', folder, '--force']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`slipgate: ${folder} is a folder; name the file to write\n`);
    expect(readdirSync(folder)).toEqual([]);
  });

  it('backup: running out of space mid-copy fails cleanly, the old backup untouched, nothing partial left', { timeout: 60_000 }, async () => {
    const old = join(dir.path, 'old.db');
    writeFileSync(old, 'the previous backup');
    const r = await slipgate(url, ['backup', '--to', old, '--force'], 64);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^slipgate: could not write the backup: .+\n$/);
    expect(readFileSync(old, 'utf8')).toBe('the previous backup');
    expect(partials(dir.path)).toEqual([]);
    // With room, --force replaces it with a checked copy.
    const ok = await slipgate(url, ['backup', '--to', old, '--force']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('40 accounts');
  });

  describe('restore', () => {
    let liveHash = '';
    beforeAll(() => {
      liveHash = sha(live);
    });
    const refused = async (source: string, reason: RegExp) => {
      const r = await slipgate(url, ['restore', '--from', source]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(reason);
      expect(r.stderr.split('\n')).toHaveLength(2);
      expect(sha(live)).toBe(liveHash);
      expect(readdirSync(dir.path).filter((f) => f.includes('before-restore'))).toEqual([]);
      expect(partials(dir.path)).toEqual([]);
    };

    it('refuses a file that is not a database', { timeout: 60_000 }, async () => {
      const junk = join(dir.path, 'notes.txt');
      writeFileSync(junk, 'ร้านกาแฟ: not a database at all, just some text long enough to look like a header');
      await refused(junk, /^slipgate: cannot restore from .*notes\.txt: the file is not a SQLite database/);
    });

    it('refuses a SQLite database that is not slipgate\'s', { timeout: 60_000 }, async () => {
      const other = join(dir.path, 'other.db');
      const db = new Database(other);
      db.exec('CREATE TABLE t (x)');
      db.close();
      await refused(other, /is not a slipgate database \(no schema_migrations table\)/);
    });

    it('refuses a truncated backup', { timeout: 60_000 }, async () => {
      const cut = join(dir.path, 'cut.db');
      const bytes = readFileSync(good);
      writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
      await refused(cut, /^slipgate: cannot restore from .*cut\.db: .*(damaged|malformed)/);
    });

    it('refuses a backup from a newer schema', { timeout: 60_000 }, async () => {
      const newer = join(dir.path, 'newer.db');
      copyFileSync(good, newer);
      const db = new Database(newer);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (99, 0)').run();
      db.close();
      await refused(newer, /has schema version 99, newer than this slipgate knows \(\d+\)/);
    });

    it('refuses a missing file', { timeout: 60_000 }, async () => {
      await refused(join(dir.path, 'missing.db'), /^slipgate: no file at .*missing\.db\n$/);
    });

    it('refuses a backup whose books do not reconcile, and restores it with --force', { timeout: 60_000 }, async () => {
      const off = join(dir.path, 'off.db');
      copyFileSync(good, off);
      const db = new Database(off);
      // Credits out of nowhere: no ledger entry.
      const { id } = db.prepare('SELECT id FROM accounts ORDER BY id LIMIT 1').get() as { id: string };
      db.prepare('UPDATE accounts SET credits = credits + 5 WHERE id = ?').run(id);
      db.close();
      await refused(off, new RegExp(`^slipgate: the backup's books do not reconcile \\(1 accounts, e\\.g\\. ${id}: credits .* but the ledger adds up to .*\\); pass --force to restore it anyway\\n$`));
      const target = join(dir.path, 'forced', 'slipgate.db');
      mkdirSync(join(dir.path, 'forced'));
      const forced = await slipgate(`sqlite:${target}`, ['restore', '--from', off, '--force']);
      expect(forced.code).toBe(0);
      expect(forced.stdout).toContain('Restored ');
    });

    it('migrates a backup of an older schema and says so', { timeout: 60_000 }, async () => {
      const older = join(dir.path, 'older.db');
      copyFileSync(good, older);
      const db = new Database(older);
      // Version 8 added verify_transactions.redacted_at and its index, the next one widened that index: undo both to get a version-7 file.
      db.exec('DROP INDEX verify_transactions_unredacted; ALTER TABLE verify_transactions DROP COLUMN redacted_at');
      db.prepare('DELETE FROM schema_migrations WHERE version >= 8').run();
      db.close();
      const target = join(dir.path, 'fresh', 'slipgate.db');
      mkdirSync(join(dir.path, 'fresh'));
      const r = await slipgate(`sqlite:${target}`, ['restore', '--from', older]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Schema migrated from version 7 to ${SQLITE_MIGRATIONS.length}.`);
      expect(r.stdout).toContain('There was no database at that path before.');
      const restored = new Database(target, { readonly: true });
      expect(restored.prepare('SELECT max(version) AS v FROM schema_migrations').get()).toEqual({ v: SQLITE_MIGRATIONS.length });
      expect(restored.prepare('SELECT count(*) AS n FROM accounts').get()).toEqual({ n: 40 });
      restored.close();
    });
  });

  it('backup: books that do not reconcile are still copied, with exit 1 and the discrepancy named', { timeout: 60_000 }, async () => {
    const broken = join(dir.path, 'broken.db');
    copyFileSync(good, broken);
    const db = new Database(broken);
    const { id } = db.prepare('SELECT id FROM accounts ORDER BY id LIMIT 1').get() as { id: string };
    db.prepare('UPDATE accounts SET usage = usage + 1 WHERE id = ?').run(id);
    db.close();
    const out = join(dir.path, 'of-broken.db');
    const r = await slipgate(`sqlite:${broken}`, ['backup', '--to', out]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`DISCREPANCY ${id}: `);
    expect(r.stdout).toContain('its books do not reconcile: run slipgate doctor on the live database');
    // The copy is there and whole: a faithful copy of books with a problem.
    const copy = new Database(out, { readonly: true });
    expect(copy.prepare('SELECT count(*) AS n FROM accounts').get()).toEqual({ n: 40 });
    expect(copy.prepare('SELECT usage FROM accounts WHERE id = ?').get(id)).toEqual({ usage: 1 });
    copy.close();
  });

  it.each(['postgres://postgres@127.0.0.1:5432/x', 'mongodb://127.0.0.1:27017/x'])('backup and restore on %s name the engine\'s own tools', { timeout: 60_000 }, async (other) => {
    const backup = await slipgate(other, ['backup', '--to', join(dir.path, 'x.db')]);
    expect(backup.code).toBe(2);
    expect(backup.stderr).toMatch(other.startsWith('postgres') ? /works on SQLite files only\. PostgreSQL: use pg_dump .*point-in-time recovery/ : /works on SQLite files only\. MongoDB: use mongodump .*snapshots/);
    const restore = await slipgate(other, ['restore', '--from', good]);
    expect(restore.code).toBe(2);
    expect(restore.stderr).toContain('docs/operations.md');
  });
});
