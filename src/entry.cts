#!/usr/bin/env node
// The `slipgate` command: sizes libuv's thread pool before anything can start
// it (thread-pool.cts says why this must come first), bounds the heap's
// growth (heap-growth.cts), then runs the program.
require('./thread-pool.cjs');
// How far the heap may grow past what is alive (heap-growth.cts): before the program allocates.
require('./heap-growth.cjs');

void import('./cli.js');
