// Bad input to `slipgate backup` and `slipgate restore`: a clear one-line
// error, exit 2, the existing files byte for byte as they were and no
// partial file left behind.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, copyFileSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { openStore } from '../../src/store/open.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { sqliteRow, sqliteRows } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const exec = promisify(execFile);

interface RunOptions {
  /** Caps the size of any file it writes (ulimit -f), like a disk that runs out. */
  fileSizeLimitKb?: number;
  cwd?: string;
  /** Runs it as this user (the tests run as root). */
  uid?: number;
}

/** Runs the CLI; `stderr` is without the "using database" line, which `databaseLine` holds. */
async function slipgate(databaseUrl: string, args: string[], { fileSizeLimitKb, cwd, uid }: RunOptions = {}) {
  const node = [process.execPath, ...SLIPGATE_CLI, ...args];
  const [cmd, argv] = fileSizeLimitKb ? ['bash', ['-c', `ulimit -f ${fileSizeLimitKb}; exec "$@"`, 'bash', ...node]] : [node[0]!, node.slice(1)];
  const options = { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }, timeout: 60_000, cwd, uid, gid: uid };
  const split = (stderr: string) => {
    const line = /^slipgate: using database [^\n]*\n/.exec(stderr)?.[0] ?? '';
    return { stderr: stderr.slice(line.length), databaseLine: line };
  };
  try {
    const { stdout, stderr } = await exec(cmd as string, argv as string[], options);
    return { code: 0, stdout, ...split(stderr) };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, ...split(e.stderr) };
  }
}

/**
 * `good`'s rows in a file of schema version 7: the first seven migrations
 * applied as the store applies them, then every table's rows copied in the
 * columns that version has (whatever later versions added).
 */
function versionSevenCopy(good: string, path: string): void {
  // A writable handle of its own: it builds an old-schema file, table by table.
  const db = new Database(path);
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  SQLITE_MIGRATIONS.slice(0, 7).forEach((sql, i) => {
    db.exec(sql);
    db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(i + 1, Date.now());
  });
  db.prepare('ATTACH DATABASE ? AS good').run(good);
  const tables = db.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT IN ('schema_migrations') AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
  for (const { name } of tables) {
    const columns = (db.prepare(`PRAGMA main.table_info(${name})`).all() as { name: string }[]).map((c) => c.name).join(', ');
    db.exec(`INSERT INTO main.${name} (${columns}) SELECT ${columns} FROM good.${name}`);
  }
  db.exec('DETACH DATABASE good');
  db.close();
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

  it('backup: names the database, writes the copy owner-only, and checks it read-only (an older schema stays as it is)', { timeout: 60_000 }, async () => {
    const older = join(dir.path, 'older-live.db');
    versionSevenCopy(good, older);
    const out = join(dir.path, 'of-older.db');
    const r = await slipgate(`sqlite:${older}`, ['backup', '--to', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.databaseLine).toBe(`slipgate: using database sqlite:${older} (from DATABASE_URL)\n`);
    expect(r.stdout).toContain(`to ${out} (schema version 7): 40 accounts`);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    for (const file of [out, older]) {
      expect(sqliteRow(file, 'SELECT max(version) AS v FROM schema_migrations')).toEqual({ v: 7 });
      expect(sqliteRows<{ name: string }>(file, 'PRAGMA table_info(verify_transactions)').map((c) => c.name)).not.toContain('redacted_at');
    }
    // One self-contained file: nothing left beside the copy.
    expect(readdirSync(dir.path).filter((f) => f.startsWith('of-older.db'))).toEqual(['of-older.db']);
  });

  it('backup: a folder this user may not write is named, with the permission it lacks', { timeout: 60_000 }, async () => {
    // The service user (65534 here) owns its database; the target folder is root's.
    chmodSync(dir.path, 0o755);
    const own = join(dir.path, 'service');
    mkdirSync(own);
    copyFileSync(good, join(own, 'slipgate.db'));
    chownSync(own, 65534, 65534);
    chownSync(join(own, 'slipgate.db'), 65534, 65534);
    const rootOnly = join(dir.path, 'root-only');
    mkdirSync(rootOnly, { mode: 0o755 });
    const target = join(rootOnly, 'nightly.db');
    const r = await slipgate(`sqlite:${join(own, 'slipgate.db')}`, ['backup', '--to', target], { uid: 65534 });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`slipgate: cannot write ${target}: this process (uid 65534) lacks write permission on the folder ${rootOnly}; run it as the folder's owner or choose another folder\n`);
    expect(readdirSync(rootOnly)).toEqual([]);
  });

  it('backup: a hard link to the live database is refused (same inode); a file of the same name elsewhere is not', { timeout: 60_000 }, async () => {
    const hard = join(dir.path, 'hard.db');
    linkSync(live, hard);
    const before = sha(live);
    const refused = await slipgate(url, ['backup', '--to', hard, '--force']);
    rmSync(hard);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`slipgate: refusing ${hard}: it is the live database file ${live}; choose a file outside the database's own\n`);
    expect(sha(live)).toBe(before);
    const other = join(dir.path, 'other-folder');
    mkdirSync(other);
    const ok = await slipgate(url, ['backup', '--to', join(other, 'live.db')]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('40 accounts');
  });

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
    const r = await slipgate(url, ['backup', '--to', old, '--force'], { fileSizeLimitKb: 64 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^slipgate: could not write the backup ${old}: .+\\n$`));
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

    it('refuses the live database under another name (symlink, ./, a path from another folder, its WAL)', { timeout: 120_000 }, async () => {
      const link = join(dir.path, 'link-to-live.db');
      symlinkSync(live, link);
      const sub = join(dir.path, 'elsewhere');
      mkdirSync(sub, { recursive: true });
      for (const [from, cwd] of [[link, undefined], ['./live.db', dir.path], ['../live.db', sub], [`${live}-wal`, undefined]] as const) {
        const r = await slipgate(url, ['restore', '--from', from], { cwd });
        expect(r.code).toBe(2);
        expect(r.stderr).toBe(`slipgate: refusing ${join(cwd ?? '', from)}: it is the live database file ${from.endsWith('-wal') ? `${live}-wal` : live}; choose a file outside the database's own\n`);
        expect(sha(live)).toBe(liveHash);
        expect(readdirSync(dir.path).filter((f) => f.includes('before-restore'))).toEqual([]);
        expect(partials(dir.path)).toEqual([]);
      }
    });

    it('refuses while another process has the database open', { timeout: 60_000 }, async () => {
      // A handle of its own, held open: the other process restore must notice.
      const other = new Database(live, { fileMustExist: true });
      let r;
      try {
        expect(other.prepare('SELECT count(*) AS n FROM accounts').get()).toEqual({ n: 40 });
        r = await slipgate(url, ['restore', '--from', good]);
      } finally {
        other.close();
      }
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`slipgate: another process has ${live} open; close it (or stop the server), then run restore again\n`);
      expect(sha(live)).toBe(liveHash);
      expect(readdirSync(dir.path).filter((f) => f.includes('before-restore'))).toEqual([]);
      expect(partials(dir.path)).toEqual([]);
    });

    it("keeps the live database's owner and mode, and the replaced file readable by its owner only", { timeout: 60_000 }, async () => {
      const folder = join(dir.path, 'owned');
      mkdirSync(folder);
      const target = join(folder, 'slipgate.db');
      copyFileSync(good, target);
      chownSync(target, 12345, 12346);
      chmodSync(target, 0o640);
      const r = await slipgate(`sqlite:${target}`, ['restore', '--from', good]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const restored = statSync(target);
      expect([restored.uid, restored.gid, restored.mode & 0o777]).toEqual([12345, 12346, 0o640]);
      const kept = readdirSync(folder).filter((f) => f.startsWith('slipgate.db.before-restore-'));
      expect(kept).toHaveLength(1);
      const keptStat = statSync(join(folder, kept[0]!));
      expect([keptStat.uid, keptStat.mode & 0o777]).toEqual([12345, 0o600]);
      expect(r.stdout).toContain('(readable by its owner only)');
    });

    it('refuses, naming the owner the service needs, when it cannot give the restored file that owner', { timeout: 60_000 }, async () => {
      chmodSync(dir.path, 0o755);
      const folder = join(dir.path, 'shared');
      mkdirSync(folder);
      chmodSync(folder, 0o777);
      const target = join(folder, 'slipgate.db');
      copyFileSync(good, target);
      chownSync(target, 12345, 12345);
      const readable = join(folder, 'backup.db');
      copyFileSync(good, readable);
      chmodSync(readable, 0o644);
      const before = sha(target);
      const r = await slipgate(`sqlite:${target}`, ['restore', '--from', readable], { uid: 65534 });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `slipgate: the restored database must belong to uid 12345 (gid 12345), the owner of ${target}, so the service can write it; this process (uid 65534) cannot give it that owner: run restore as that user or as root\n`,
      );
      expect(sha(target)).toBe(before);
      expect(readdirSync(folder).sort()).toEqual(['backup.db', 'slipgate.db']);
    });

    it('refuses a file that is not a database', { timeout: 60_000 }, async () => {
      const junk = join(dir.path, 'notes.txt');
      writeFileSync(junk, 'ร้านกาแฟ: not a database at all, just some text long enough to look like a header');
      await refused(junk, /^slipgate: cannot restore from .*notes\.txt: the file is not a SQLite database/);
    });

    it('refuses a SQLite database that is not slipgate\'s', { timeout: 60_000 }, async () => {
      const other = join(dir.path, 'other.db');
      // Writes a SQLite file slipgate never made.
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
      // Tampers with the copy's schema version, as a newer slipgate would have left it.
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
      // Credits out of nowhere, no ledger entry: a writable handle of its own tampers with the copy.
      const db = new Database(off);
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
      versionSevenCopy(good, older);
      const target = join(dir.path, 'fresh', 'slipgate.db');
      mkdirSync(join(dir.path, 'fresh'));
      const r = await slipgate(`sqlite:${target}`, ['restore', '--from', older]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Schema migrated from version 7 to ${SQLITE_MIGRATIONS.length}.`);
      expect(r.stdout).toContain('There was no database at that path before.');
      expect(sqliteRow(target, 'SELECT max(version) AS v FROM schema_migrations')).toEqual({ v: SQLITE_MIGRATIONS.length });
      expect(sqliteRow(target, 'SELECT count(*) AS n FROM accounts')).toEqual({ n: 40 });
    });
  });

  it('backup: books that do not reconcile are still copied, with exit 1 and the discrepancy named', { timeout: 60_000 }, async () => {
    const broken = join(dir.path, 'broken.db');
    copyFileSync(good, broken);
    // A writable handle of its own: it tampers with the books behind the store's back.
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
    expect(sqliteRow(out, 'SELECT count(*) AS n FROM accounts')).toEqual({ n: 40 });
    expect(sqliteRow(out, 'SELECT usage FROM accounts WHERE id = ?', id)).toEqual({ usage: 1 });
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
