// How a test starts slipgate's command line as a child process: the node
// arguments before the command's own. The run's transpiled copy of src/
// (test/global-setup.ts) when there is one, which starts in half the time;
// otherwise (a test file run outside vitest's global setup) src/ through tsx,
// by path: some children run in a folder where a bare `tsx` does not resolve.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const build = process.env.SLIPGATE_TEST_BUILD;

export const SLIPGATE_CLI: readonly string[] = build ? [join(build, 'src', 'cli.js')] : ['--import', import.meta.resolve('tsx'), fileURLToPath(new URL('../../src/cli.ts', import.meta.url))];
