// Test-only: loaded with `node --import` into a slipgate child by
// test/fault/power-loss.test.ts when SLIPGATE_POWERLOSS_UNSAFE=1, to show
// that the power-loss test catches a store that answers before its commit is
// on disk. It turns SQLite's `synchronous = FULL` into `synchronous = OFF`
// and makes the store's own WAL fsync (wal-sync.ts) return without syncing.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import Database from 'better-sqlite3';

const pragma = Database.prototype.pragma;
Database.prototype.pragma = function (source, options) {
  return pragma.call(this, /^\s*synchronous\s*=/i.test(source) ? 'synchronous = OFF' : source, options);
};
fs.fsync = (_fd, callback) => process.nextTick(callback, null);
syncBuiltinESMExports();
