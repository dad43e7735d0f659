// The group commit's riding writes (a webhook attempt's record): one joins
// the next batch of other writes instead of committing alone, commits on
// its own when no batch comes, and is committed before the database closes.
// Seen through a second connection to the same file, which sees a write
// only once its commit is done.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLite, type Lite } from '../../src/store/sqlite/connection.js';
import { sqliteRow, sqliteRows } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';

const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});

function opened(): { lite: Lite; path: string; seen: (name: string) => boolean } {
  const dir = tempDir();
  dirs.push(dir);
  const path = join(dir.path, 'group.db');
  const lite = openLite(path);
  lite.db.exec('CREATE TABLE marks (name TEXT PRIMARY KEY)');
  return { lite, path, seen: (name) => sqliteRow(path, 'SELECT 1 FROM marks WHERE name = ?', name) !== undefined };
}

const mark = (lite: Lite, name: string) => () => lite.db.prepare('INSERT INTO marks (name) VALUES (?)').run(name).changes;

describe('sqlite group commit: riding writes', () => {
  it('commits a riding write with the next batch of other writes, not on its own', async () => {
    const { lite, seen } = opened();
    try {
      const riding = lite.writes.run(mark(lite, 'rider'), false, { ride: true });
      // Not committed on its own at the next turn, as a plain write would be (the ride is 20 ms; this timer ends first).
      await new Promise((r) => setTimeout(r, 5));
      expect(seen('rider')).toBe(false);
      // A plain write starts a batch at once, and the rider joins it.
      await lite.writes.run(mark(lite, 'settle'), false);
      expect(seen('settle')).toBe(true);
      expect(seen('rider')).toBe(true);
      expect(await riding).toBe(1);
    } finally {
      await lite.writes.drain();
      lite.db.close();
    }
  });

  it('commits a riding write alone when no other write comes', async () => {
    const { lite, seen } = opened();
    try {
      const riding = lite.writes.run(mark(lite, 'alone'), false, { ride: true });
      expect(seen('alone')).toBe(false);
      expect(await riding).toBe(1);
      expect(seen('alone')).toBe(true);
    } finally {
      await lite.writes.drain();
      lite.db.close();
    }
  });

  it('commits waiting riders when drained before the database closes', async () => {
    const { lite, path } = opened();
    const riding = lite.writes.run(mark(lite, 'late'), false, { ride: true });
    await lite.writes.drain();
    lite.db.close();
    expect(await riding).toBe(1);
    expect(sqliteRows(path, 'SELECT name FROM marks')).toEqual([{ name: 'late' }]);
  });
});
