// Runs slipgate as a real child process (the same CLI `npm start` runs), so
// tests can SIGKILL or SIGTERM it.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll } from 'vitest';
import { SLIPGATE_CLI } from './slipgate-command.js';

export interface Child {
  proc: ChildProcess;
  publicUrl: string;
  adminUrl: string;
  /** Log lines seen so far (JSON parsed). */
  logs: Record<string, unknown>[];
  exited: Promise<number | null>;
}

// A test that times out while a child is still starting never gets its
// handle, so nothing would stop it: whatever is still running when the test
// file ends is killed (registered on the file that imports this helper).
const running = new Set<ChildProcess>();
afterAll(() => {
  for (const proc of running) proc.kill('SIGKILL');
});

/** `onSpawn` sees the process at once, before it listens (a test that watches it start); `cwd`: where it runs (default this process's). */
export async function spawnSlipgate(env: Record<string, string>, onSpawn?: (proc: ChildProcess) => void, cwd?: string): Promise<Child> {
  const proc = spawn(process.execPath, [...SLIPGATE_CLI, 'serve'], {
    ...(cwd === undefined ? {} : { cwd }),
    // Tests start on fresh temporary files: serve may create them (test/e2e/startup-failures.test.ts checks the refusal).
    env: { ...process.env, PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'info', DATABASE_CREATE: 'yes', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onSpawn?.(proc);
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  running.add(proc);
  const exited = once(proc, 'exit').then(([code]) => {
    running.delete(proc);
    return code as number | null;
  });
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (entry.msg === 'slipgate listening') resolve(entry);
      } catch {
        // not a log line
      }
    });
    void exited.then((code) => reject(new Error(`slipgate exited (${code}) before listening: ${stderr}`)));
  });
  const listening = await ready;
  return { proc, publicUrl: listening.publicUrl as string, adminUrl: listening.adminUrl as string, logs, exited };
}

export async function postVerify(publicUrl: string, apiKey: string, qrcode: string) {
  const res = await fetch(`${publicUrl}/api/v1/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ qrcode }),
  });
  return { status: res.status, requestId: res.headers.get('x-request-id'), body: (await res.json()) as { status: string; code?: number; message: string } };
}

/** Polls `check` until it returns true or the time is up. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
