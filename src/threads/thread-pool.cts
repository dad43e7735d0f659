// Sizes libuv's thread pool; loaded first by the `slipgate` entry (entry.cts).
// libuv reads UV_THREADPOOL_SIZE once, when its pool first starts, and Node's
// ES module loader starts it while reading the program's own files: setting it
// anywhere in cli.ts or after is silently too late. This file is CommonJS, read
// synchronously, so it runs before any of that. (Plain JavaScript in a .cts
// file, so `node -r` can load it from the sources as well as from dist/.)
//
// Why a bigger pool: the durable path (SQLite's WAL fsync) and DNS lookups of
// bank hosts run on this pool, and so does sharp when the image pool needs it.
// Each image thread holds at most one pool thread at a time, so libuv's
// default of 4 plus one per image thread keeps 4 for everything else.
// An operator's own UV_THREADPOOL_SIZE always wins.
const { availableParallelism } = require('node:os');

const LIBUV_DEFAULT = 4;
/** libuv's own ceiling. */
const LIBUV_MAX = 1024;

function imageThreads() {
  const given = Number(process.env.IMAGE_WORKERS);
  // A bad IMAGE_WORKERS is reported by the config check; here it only sizes the pool.
  return Number.isInteger(given) && given >= 1 ? given : availableParallelism();
}

if (!process.env.UV_THREADPOOL_SIZE) process.env.UV_THREADPOOL_SIZE = String(Math.min(LIBUV_MAX, LIBUV_DEFAULT + imageThreads()));
