// `slipgate serve | head -3`, or a log shipper that died: stdout becomes a
// closed pipe and every write to it fails with EPIPE. SIGTERM must still end
// the process after the drain, not leave it retrying write(1) for ever.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { eventually } from '../helpers/child.js';
import { tempDir } from '../helpers/temp.js';

/**
 * Whether serve has installed its signal handlers. Node catches SIGTERM from
 * the start (and dies of it while no listener is there), so the sign is
 * SIGHUP (signal 1: bit 0 of SigCgt in /proc), which serve starts catching
 * in the same step as SIGTERM.
 */
function handlesSignals(pid: number): boolean {
  const caught = /^SigCgt:\s+([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
  return (BigInt(`0x${caught}`) & 1n) !== 0n;
}

// The built command (npm run build), so no loader's signal handling stands between the test and serve.
const ENTRY = new URL('../../dist/entry.cjs', import.meta.url).pathname;

describe('serve with stdout a closed pipe', { timeout: 120_000 }, () => {
  const dir = tempDir();
  const databaseUrl = `sqlite:${join(dir.path, 'pipe.db')}`;
  const started: ChildProcess[] = [];
  afterAll(() => {
    // A process stuck on EPIPE (the bug) ignores SIGTERM: it must not outlive the test.
    for (const proc of started) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    dir.remove();
  });

  /** Starts serve, reads its log until it listens, then closes the pipe's reading end, as `head` does when it has its lines. */
  async function serveThenCloseStdout(): Promise<{ proc: ChildProcess; publicUrl: string }> {
    const proc = spawn(process.execPath, [ENTRY, 'serve'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(proc);
    const lines = createInterface({ input: proc.stdout! });
    let publicUrl = '';
    for await (const line of lines) {
      const entry = JSON.parse(line) as { msg?: string; publicUrl?: string };
      if (entry.msg === 'slipgate listening') {
        publicUrl = entry.publicUrl!;
        break;
      }
    }
    lines.close();
    proc.stdout!.destroy();
    // Until serve handles SIGTERM, the signal would kill it outright and prove nothing.
    await eventually(async () => handlesSignals(proc.pid!));
    return { proc, publicUrl };
  }

  it('SIGTERM ends it, whether or not a line failed to reach the pipe before', async () => {
    await (await openStore(databaseUrl)).close();

    for (const requestFirst of [false, true, false]) {
      const { proc, publicUrl } = await serveThenCloseStdout();
      const exited = once(proc, 'exit');
      if (requestFirst) {
        // A request writes its log line into the closed pipe: EPIPE while serving.
        const res = await fetch(`${publicUrl}/api/v1/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        expect(await res.json()).toMatchObject({ status: 'error', code: 1020 });
      }
      proc.kill('SIGTERM');
      // A process that loops on EPIPE never gets here; the test's timeout fails it.
      const [code, signal] = (await exited) as [number | null, string | null];
      expect({ code, signal }).toEqual({ code: 0, signal: null });
    }
  });
});
