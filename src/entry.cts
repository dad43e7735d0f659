#!/usr/bin/env node
// The `slipgate` command: sizes libuv's thread pool before anything can start
// it (thread-pool.cts says why this must come first), then runs the program.
require('./threads/thread-pool.cjs');

void import('./cli.js');
