// Bounds how far V8 lets the heap grow past what it last found alive; loaded
// first by the `slipgate` entry (entry.cts), like thread-pool.cts, so every
// shipped way of starting slipgate (npm start, the systemd units, the image)
// has it without a flag. (Plain JavaScript in a .cts file, so `node -r` can
// load it from the sources as well as from dist/.)
//
// Why: after a full collection V8 lets the old generation grow to up to four
// times what survived before it collects again, and on a large machine its
// limit (a quarter of the memory, up to 4 GB) never stops it: with 5,000
// verifications in flight, ~195 MB alive became a 633 MB peak RSS, most of it
// garbage not yet collected (docs/performance.md#memory). A growth of 100%
// lets the heap reach twice what is alive, whatever the machine: memory
// follows the load, and no heap cap is set that live data could outgrow
// (a cap stops the process when it is reached). V8 reads this flag each time
// it sizes the next limit, so setting it at start-up works, where the heap
// cap (--max-old-space-size) is read once, before any JavaScript runs.
// An operator's own --heap-growing-percent, --max-old-space-size or
// --max-heap-size (command line or NODE_OPTIONS) is left to rule alone.
const v8 = require('node:v8');

const HEAP_GROWING_PERCENT = 100;
const OPERATOR_FLAGS = /--(?:heap[-_]growing[-_]percent|max[-_]old[-_]space[-_]size|max[-_]heap[-_]size)\b/;

const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) => OPERATOR_FLAGS.test(arg));
if (!given) v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
