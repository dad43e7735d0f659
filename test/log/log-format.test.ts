// Logs for people and for machines: LOG_FORMAT=pretty gives readable lines,
// a non-terminal stdout gets JSON lines by default, and secrets stay
// redacted in both. The servers are real `slipgate serve` child processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { generateApiKey } from '../../src/domain/keys/api-key.js';
import { createLogger, logFormatFor } from '../../src/log/log.js';
import { prettyLine } from '../../src/log/pretty.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

interface Served {
  proc: ChildProcess;
  lines: string[];
  /** Resolves with the first line matching. */
  line(match: RegExp): Promise<string>;
}

const started: ChildProcess[] = [];
const dirs: { remove(): void }[] = [];
afterEach(async () => {
  for (const proc of started.splice(0)) {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      await once(proc, 'exit');
    }
  }
  for (const dir of dirs.splice(0)) dir.remove();
});

function serve(env: Record<string, string>): Served {
  const dir = tempDir();
  dirs.push(dir);
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'info', DATABASE_URL: `sqlite:${join(dir.path, 'log.db')}`, DATABASE_CREATE: 'yes', ...env };
  delete childEnv.FORCE_COLOR;
  if (env.LOG_FORMAT === undefined) delete childEnv.LOG_FORMAT;
  const proc = spawn(process.execPath, [...SLIPGATE_CLI, 'serve'], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(proc);
  const lines: string[] = [];
  const waiters: { match: RegExp; resolve(line: string): void }[] = [];
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const w of waiters.filter((w) => w.match.test(line))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(line);
    }
  });
  return {
    proc,
    lines,
    line: (match) =>
      new Promise((resolve, reject) => {
        const seen = lines.find((l) => match.test(l));
        if (seen) return resolve(seen);
        waiters.push({ match, resolve });
        void once(proc, 'exit').then(() => reject(new Error(`slipgate exited before logging ${match}:\n${lines.join('\n')}`)));
      }),
  };
}

const isJson = (line: string) => {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
};

describe('log format', () => {
  it('LOG_FORMAT=pretty: readable lines that say where everything is, keys redacted', { timeout: 90_000 }, async () => {
    const s = serve({ LOG_FORMAT: 'pretty' });
    const listening = await s.line(/slipgate listening/);
    expect(listening).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  slipgate listening  publicUrl=http:\/\/127\.0\.0\.1:\d+ adminUrl=http:\/\/127\.0\.0\.1:\d+/);
    const publicUrl = /publicUrl=(\S+)/.exec(listening)![1]!;
    const adminUrl = /adminUrl=(\S+)/.exec(listening)![1]!;
    expect(await s.line(/^.* INFO  public API: /)).toContain(`POST ${publicUrl}/api/v1/verify`);
    expect(await s.line(/INFO  admin API/)).toContain(`${adminUrl}/graphql`);
    const dashboard = await s.line(/INFO  dashboard: /);
    expect(dashboard).toContain(`open ${adminUrl}/ and sign in with an admin token`);
    expect(dashboard).toContain('npx slipgate admin-tokens create --name');
    expect(await s.line(/INFO  metrics \(Prometheus\)/)).toContain(`${adminUrl}/metrics`);

    // A key put in the URL by mistake is redacted in the readable line too.
    const key = generateApiKey().key;
    expect((await fetch(`${publicUrl}/api/v1/verify/${key}`, { method: 'POST' })).status).toBe(404);
    const request = await s.line(/INFO  request .*status=404/);
    expect(request).toContain('path=/api/v1/verify/slip_[redacted]');
    expect(s.lines.join('\n')).not.toContain(key.slice(-24));
    // No colour codes when stdout is not a terminal.
    expect(s.lines.join('\n')).not.toContain('\u001b[');
    expect(s.lines.filter(isJson)).toEqual([]);
  });

  it('stdout not a terminal and LOG_FORMAT unset: JSON lines, as for log collectors', { timeout: 90_000 }, async () => {
    const s = serve({});
    const listening = JSON.parse(await s.line(/slipgate listening/)) as Record<string, unknown>;
    expect(listening.level).toBe(30);
    expect(listening.publicUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const guide = JSON.parse(await s.line(/dashboard: open/)) as { msg: string; url: string };
    expect(guide.url).toBe(`${listening.adminUrl as string}/`);
    expect(s.lines.every(isJson)).toBe(true);
  });

  it('picks pretty for a terminal unless LOG_FORMAT says otherwise, and validates LOG_FORMAT', () => {
    expect(logFormatFor(undefined, { isTTY: true })).toBe('pretty');
    expect(logFormatFor(undefined, { isTTY: false })).toBe('json');
    expect(logFormatFor(undefined, {})).toBe('json');
    expect(logFormatFor('json', { isTTY: true })).toBe('json');
    expect(logFormatFor('pretty', { isTTY: false })).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).LOG_FORMAT).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(ConfigError);
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT: .*"json".*"pretty".*\(got "xml"\)/);
  });

  it('redacts secrets handed to a pretty logger, and colours only when asked', () => {
    const out: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _e, done) => (out.push(chunk.toString()), done()) });
    const logger = createLogger('info', sink, 'pretty');
    const key = generateApiKey().key;
    logger.info({ apiKey: key, headers: { 'x-api-key': key, authorization: `Bearer ${key}` } }, 'secrets by mistake');
    logger.error({ err: new Error('boom') }, 'it broke');
    const text = out.join('');
    expect(text).toContain('INFO  secrets by mistake  apiKey=[redacted] headers={"x-api-key":"[redacted]","authorization":"[redacted]"}');
    expect(text).not.toContain(key);
    expect(text).toMatch(/ERROR it broke\n {4}Error: boom\n {4}\s+at /);
    const coloured = prettyLine(JSON.stringify({ level: 50, time: Date.now(), msg: 'red' }), { colour: true });
    expect(coloured).toContain('\u001b[31mERROR\u001b[0m');
  });
});
