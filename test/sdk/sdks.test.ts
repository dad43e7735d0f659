// The PHP, Python and Go SDKs' own suites (sdk/php, sdk/python, sdk/go), run
// by their own runners as child processes: each reads sdk/vectors and starts
// a real slipgate of its own from dist/ (a success, the contract errors, a
// picture, a paid payment request, a delivered webhook, the docs example).
// The three run at once; each needs `npm run build` first. docs/sdks.md shows
// exactly the example files those suites run.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { blocks, ROOT } from '../docs/pages.js';

const run = promisify(execFile);
const SUITES = [
  { sdk: 'php', command: 'phpunit', args: [], passed: /^OK \(\d+ tests/m },
  { sdk: 'python', command: 'python3', args: ['-m', 'unittest', '-v'], passed: /^OK$/m },
  { sdk: 'go', command: 'go', args: ['test', '-count=1', './...'], passed: /^ok\s+slipgate\/sdk\s/m },
] as const;
const EXAMPLES = { php: 'sdk/php/examples/quickstart.php', python: 'sdk/python/examples/quickstart.py', go: 'sdk/go/examples/quickstart/main.go' } as const;

describe('the PHP, Python and Go SDKs', () => {
  it.concurrent.each(SUITES)('$sdk: $command passes', async ({ sdk, command, args, passed }) => {
    if (!existsSync(join(ROOT, 'dist/entry.cjs'))) throw new Error('run `npm run build` first: the SDK suites start dist/entry.cjs serve');
    // Nothing written into the checkout (no __pycache__), and no Go module or toolchain download.
    const env = { ...process.env, PYTHONDONTWRITEBYTECODE: '1', GOFLAGS: '-mod=readonly', GOPROXY: 'off', GOTOOLCHAIN: 'local' };
    const { stdout, stderr } = await run(command, args, { cwd: join(ROOT, 'sdk', sdk), env, timeout: 230_000, maxBuffer: 16 << 20 }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`${sdk}: ${command} failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
    });
    expect(`${stdout}\n${stderr}`).toMatch(passed);
  }, 240_000);

  it.each(Object.entries(EXAMPLES))('docs/sdks.md shows %s exactly as its suite runs it', (language, file) => {
    const shown = blocks('docs/sdks.md').filter((b) => b.language === language);
    expect(shown).toHaveLength(1);
    expect(shown[0]!.body).toBe(readFileSync(join(ROOT, file), 'utf8'));
    expect(shown[0]!.notRun).toContain(file);
  });
});
