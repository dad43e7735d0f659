// Erasures survive a restore (domain/erasure-register.ts): restoring a
// backup taken before an erasure re-applies it from the admin events of the
// database being replaced, so the erased sender is in no byte of the
// restored file and the erasure's event is back; another account's records
// stay as they were; a backup that already holds the erasure changes nothing.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { AdminActions } from '../../src/domain/admin/actions.js';
import { openStore } from '../../src/store/open.js';
import { ERASED_NAME, seedVerifications } from '../helpers/seed-verifications.js';
import { sqliteRow, sqliteRows } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const exec = promisify(execFile);
const KEPT_NAME = 'นาย คงอยู่ ทดสอบ';
const RECORDS = 300;

async function slipgate(databaseUrl: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [...SLIPGATE_CLI, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }, timeout: 60_000 });
    return { code: 0, stdout, stderr: stderr.replace(/^slipgate: using database [^\n]*\n/, '') };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const bytesOf = (file: string) => Buffer.concat([file, `${file}-wal`].filter(existsSync).map((f) => readFileSync(f)));

describe('restore re-applies erasures made after the backup', () => {
  const dir = tempDir();
  const live = join(dir.path, 'live.db');
  const url = `sqlite:${live}`;
  afterAll(() => dir.remove());

  it('the erased account is redacted again and its event is back; the other account keeps its records', { timeout: 180_000 }, async () => {
    const store = await openStore(url);
    const accounts = new AccountService(store);
    const erased = (await accounts.createAccount({ name: 'ร้านที่ขอลบ', credits: RECORDS + 10, actor: 'test' })).account.id;
    const kept = (await accounts.createAccount({ name: 'ร้านที่อยู่ต่อ', credits: RECORDS + 10, actor: 'test' })).account.id;
    await store.close();
    seedVerifications(live, erased, RECORDS);
    seedVerifications(live, kept, RECORDS, KEPT_NAME);
    const old = join(dir.path, 'before-erasure.db');
    expect((await slipgate(url, 'backup', '--to', old)).code).toBe(0);
    expect(readFileSync(old).includes(Buffer.from(ERASED_NAME))).toBe(true);

    const erasing = await openStore(url);
    await new AdminActions({ store: erasing, accounts: new AccountService(erasing) }).erasePersonalData('cli:dpo', erased, 'PDPA request 7');
    const [event] = (await erasing.listAdminEvents({ targetId: erased, limit: 10 })).items.filter((e) => e.action === 'erasePersonalData');
    await erasing.close();
    expect(event).toBeDefined();

    const r = await slipgate(url, 'restore', '--from', old, '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).erasuresReapplied).toEqual([{ accountId: erased, erasedAt: event!.createdAt.toISOString(), eventId: event!.id }]);

    const records = (account: string) => sqliteRow(live, 'SELECT count(*) AS n, count(redacted_at) AS redacted, max(redacted_at) AS at FROM verify_transactions WHERE account_id = ?', account);
    expect(records(erased)).toEqual({ n: RECORDS, redacted: RECORDS, at: event!.createdAt.getTime() });
    expect(records(kept)).toEqual({ n: RECORDS, redacted: 0, at: null });
    expect(sqliteRows(live, "SELECT id, actor, reason FROM admin_events WHERE action = 'erasePersonalData'")).toEqual([{ id: event!.id, actor: 'cli:dpo', reason: 'PDPA request 7' }]);
    // Not a byte of the erased sender, in the file or beside it; the other sender is still there (the search works).
    const bytes = bytesOf(live);
    expect(bytes.includes(Buffer.from(ERASED_NAME))).toBe(false);
    expect(bytes.includes(Buffer.from(KEPT_NAME))).toBe(true);

    // The register travels: the same old backup again, and it is re-applied again.
    const again = await slipgate(url, 'restore', '--from', old, '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).erasuresReapplied).toHaveLength(1);
    // A backup taken after the erasure already holds it: nothing to re-apply.
    const after = join(dir.path, 'after-erasure.db');
    expect((await slipgate(url, 'backup', '--to', after)).code).toBe(0);
    const plain = await slipgate(url, 'restore', '--from', after);
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toContain('re-applied');
  });
});
