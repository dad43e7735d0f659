// deploy/systemd/slipgate.service: hardened, restarts on failure, stops
// after the drain, and is a unit systemd itself accepts (systemd-analyze
// verify prints nothing about it; .ci/run installs systemd where missing).
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';
import { DRAIN_BOUND_SECONDS, durationSeconds } from './drain.js';

const run = promisify(execFile);
const UNIT = new URL('../../deploy/systemd/slipgate.service', import.meta.url).pathname;
const text = readFileSync(UNIT, 'utf8');

/** Section → key → values (a key may repeat, like Environment=). */
function parseUnit(unit: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const raw of unit.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) sections.set(header[1]!, (current = new Map()));
    else {
      const eq = line.indexOf('=');
      const key = line.slice(0, eq);
      current!.set(key, [...(current!.get(key) ?? []), line.slice(eq + 1)]);
    }
  }
  return sections;
}

describe('systemd unit', () => {
  const service = parseUnit(text).get('Service')!;
  const one = (key: string) => {
    const values = service.get(key);
    expect(values, key).toHaveLength(1);
    return values![0]!;
  };
  const dir = tempDir('slipgate-unit-');
  afterAll(() => dir.remove());

  it('runs as a user of its own, writes only its state directory and restarts on failure', () => {
    expect(one('DynamicUser')).toBe('yes');
    expect(one('User')).toBe('slipgate');
    expect(one('StateDirectory')).toBe('slipgate');
    expect(one('ProtectSystem')).toBe('strict');
    expect(one('NoNewPrivileges')).toBe('yes');
    expect(one('ProtectHome')).toBe('yes');
    expect(one('PrivateTmp')).toBe('yes');
    expect(one('CapabilityBoundingSet')).toBe('');
    expect(one('Restart')).toBe('on-failure');
    // The default engine's file lives in StateDirectory (/var/lib/<name>), the one writable place.
    const env = service.get('Environment')!.join(' ');
    expect(env).toMatch(/(^| )DATABASE_URL=sqlite:\/var\/lib\/slipgate\/slipgate\.db( |$)/);
    expect(one('ExecStart')).toMatch(/^\/usr\/bin\/node \/opt\/slipgate\/dist\/entry\.cjs serve$/);
    expect(one('WorkingDirectory')).toBe('/opt/slipgate');
  });

  it('gives SIGTERM longer than the drain before killing', () => {
    expect(one('KillSignal')).toBe('SIGTERM');
    expect(durationSeconds(one('TimeoutStopSec'))).toBeGreaterThan(DRAIN_BOUND_SECONDS);
  });

  it('passes systemd-analyze verify', async () => {
    // verify checks that ExecStart's program exists: point it at this machine's node.
    const path = join(dir.path, 'slipgate.service');
    writeFileSync(path, text.replaceAll('/usr/bin/node ', `${process.execPath} `));
    const { stdout, stderr } = await run('systemd-analyze', ['verify', path]).catch((err: { code: number; stdout: string; stderr: string }) => {
      throw new Error(`systemd-analyze verify exited ${err.code}: ${err.stderr}${err.stdout}`);
    });
    // Problems with a unit are warnings on stderr with exit status 0.
    expect(`${stdout}${stderr}`.split('\n').filter((line) => line.includes('slipgate.service'))).toEqual([]);
  });
});
