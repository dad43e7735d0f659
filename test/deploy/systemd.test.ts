// deploy/systemd/: slipgate.service is hardened, restarts on failure, stops
// after the drain, reads its settings from the file the `slipgate` command
// reads; the instance template, and the backup and doctor services and
// timers, are units systemd itself accepts (systemd-analyze verify prints
// nothing about them; .ci/run installs systemd where missing). No systemd
// runs here: the units are checked, not started.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';
import { DRAIN_BOUND_SECONDS, durationSeconds } from './drain.js';

const run = promisify(execFile);
const DEPLOY = new URL('../../deploy/systemd/', import.meta.url).pathname;
const text = readFileSync(join(DEPLOY, 'slipgate.service'), 'utf8');
const ENV_FILE = '/etc/slipgate/slipgate.env';

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
    // The database is named in the settings file only (the command reads it too), never in the unit:
    // the default engine's file lives in StateDirectory (/var/lib/<name>), the one writable place.
    expect(service.get('Environment')!.join(' ')).not.toContain('DATABASE_URL');
    expect(one('EnvironmentFile')).toBe(ENV_FILE);
    const settings = readFileSync(join(DEPLOY, 'slipgate.env'), 'utf8');
    expect(settings).toMatch(/^DATABASE_URL=sqlite:\/var\/lib\/slipgate\/slipgate\.db$/m);
    expect(settings).toMatch(/^TRUST_PROXY_HOPS=1$/m);
    expect(one('ExecStart')).toBe('/bin/sh /opt/slipgate/bin/sized-node /opt/slipgate/dist/entry.cjs serve');
    expect(service.get('Environment')).toContain('NODE=/usr/bin/node');
    expect(one('WorkingDirectory')).toBe('/opt/slipgate');
  });

  it('takes SECRETS_KEY as a systemd credential named like the setting, never from the env file', () => {
    const credential = 'SECRETS_KEY:/etc/slipgate/credentials/SECRETS_KEY';
    expect(service.get('LoadCredential')).toEqual([credential]);
    expect(parseUnit(readFileSync(join(DEPLOY, 'slipgate@.service'), 'utf8')).get('Service')!.get('LoadCredential')).toEqual([credential]);
    expect(readFileSync(join(DEPLOY, 'slipgate.env'), 'utf8')).not.toMatch(/^SECRETS_KEY=/m);
  });

  it('gives SIGTERM longer than the drain before killing', () => {
    expect(one('KillSignal')).toBe('SIGTERM');
    expect(durationSeconds(one('TimeoutStopSec'))).toBeGreaterThan(DRAIN_BOUND_SECONDS);
  });

  it('the template runs each instance on its own ports, with the shared settings first', () => {
    const template = parseUnit(readFileSync(join(DEPLOY, 'slipgate@.service'), 'utf8')).get('Service')!;
    expect(template.get('EnvironmentFile')).toEqual([ENV_FILE, '/etc/slipgate/instance-%i.env']);
    expect(template.get('ExecStart')).toEqual(service.get('ExecStart'));
    expect(template.get('StateDirectory')).toEqual(['slipgate']);
    const ports = ['instance-1.env', 'instance-2.env'].map((f) => readFileSync(join(DEPLOY, f), 'utf8').match(/^(PORT|ADMIN_PORT)=(\d+)$/gm));
    expect(ports).toEqual([['PORT=3000', 'ADMIN_PORT=3001'], ['PORT=3002', 'ADMIN_PORT=3003']]);
  });

  it('the daily backup and doctor run as the service user with its settings, from timers', () => {
    for (const name of ['slipgate-backup', 'slipgate-doctor']) {
      const job = parseUnit(readFileSync(join(DEPLOY, `${name}.service`), 'utf8')).get('Service')!;
      expect(job.get('Type'), name).toEqual(['oneshot']);
      expect(job.get('User'), name).toEqual(['slipgate']);
      expect(job.get('EnvironmentFile'), name).toEqual([ENV_FILE]);
      const timer = parseUnit(readFileSync(join(DEPLOY, `${name}.timer`), 'utf8'));
      expect(timer.get('Timer')!.get('OnCalendar'), name).toHaveLength(1);
      expect(timer.get('Timer')!.get('Persistent'), name).toEqual(['true']);
    }
  });

  it.each(['slipgate.service', 'slipgate@.service', 'slipgate-backup.service', 'slipgate-backup.timer', 'slipgate-doctor.service', 'slipgate-doctor.timer'])(
    '%s passes systemd-analyze verify',
    async (file) => {
      // verify checks that ExecStart's program exists: point it at this machine's node. A template is verified as an instance.
      const name = file.replace('@.', '@1.');
      for (const other of ['slipgate.service', 'slipgate-backup.service', 'slipgate-doctor.service']) {
        writeFileSync(join(dir.path, other), readFileSync(join(DEPLOY, other), 'utf8').replaceAll('/usr/bin/node ', `${process.execPath} `));
      }
      const path = join(dir.path, name);
      writeFileSync(path, readFileSync(join(DEPLOY, file), 'utf8').replaceAll('/usr/bin/node ', `${process.execPath} `));
      const { stdout, stderr } = await run('systemd-analyze', ['verify', path]).catch((err: { code: number; stdout: string; stderr: string }) => {
        throw new Error(`systemd-analyze verify exited ${err.code}: ${err.stderr}${err.stdout}`);
      });
      // Problems with a unit are warnings on stderr with exit status 0.
      expect(`${stdout}${stderr}`.split('\n').filter((line) => line.includes(name.replace('.service', '').replace('.timer', '')))).toEqual([]);
    },
  );
});
