// UPSTREAMS entries of the slip APIs (SlipOK, RDCW, EasySlip, Slip2Go): the
// provider's public address unless one is given, every secret inline or from
// a file, the fields the routing reads kept, and mistakes named without the
// secret.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeUpstreamConfig, loadUpstreamConfigs } from '../../src/upstream/config.js';
import { tempDir } from '../helpers/temp.js';

const dirs: { path: string; remove(): void }[] = [];
afterEach(() => dirs.splice(0).forEach((d) => d.remove()));
const load = (entries: unknown) => loadUpstreamConfigs({ UPSTREAMS: JSON.stringify(entries) });
function problems(entries: unknown): string {
  try {
    load(entries);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected an error');
}

describe('slip API entries', () => {
  it('read with defaults: the public address, priority 1, pictures off', () => {
    expect(load([{ name: 'slipok-1', provider: 'slipok', branchId: '12345', apiKey: 'SLIPOK-TOP-SECRET' }, { name: 'rdcw-1', provider: 'rdcw', clientId: 'rd-id', clientSecret: 'RDCW-TOP-SECRET' }])).toEqual([
      {
        name: 'slipok-1',
        provider: 'slipok',
        weight: 1,
        priority: 1,
        enabled: true,
        baseUrl: 'https://api.slipok.com',
        idleSocketTimeoutMs: 4000,
        branchId: '12345',
        apiKey: 'SLIPOK-TOP-SECRET',
        readsPictures: false,
      },
      {
        name: 'rdcw-1',
        provider: 'rdcw',
        weight: 1,
        priority: 1,
        enabled: true,
        baseUrl: 'https://suba.rdcw.co.th',
        idleSocketTimeoutMs: 4000,
        clientId: 'rd-id',
        clientSecret: 'RDCW-TOP-SECRET',
        readsPictures: false,
      },
    ]);
  });

  it('keep a simulator address without its trailing slash, priority, weight and readsPictures', () => {
    const [slipok, rdcw] = load([
      { name: 'slipok-2', provider: 'slipok', baseUrl: 'http://127.0.0.1:9003/', branchId: '7', apiKey: 'k', priority: 2, weight: 3, readsPictures: true },
      { name: 'rdcw-2', provider: 'rdcw', baseUrl: 'http://127.0.0.1:9004', clientId: 'i', clientSecret: 's', priority: 3, enabled: false, readsPictures: true },
    ]);
    expect(slipok).toMatchObject({ baseUrl: 'http://127.0.0.1:9003', priority: 2, weight: 3, readsPictures: true });
    expect(rdcw).toMatchObject({ baseUrl: 'http://127.0.0.1:9004', priority: 3, enabled: false, readsPictures: true });
  });

  it('read every secret from a file instead, dropping its line break', () => {
    const dir = tempDir();
    dirs.push(dir);
    for (const [file, value] of [['slipok-key', 'key-from-file'], ['rdcw-id', 'id-from-file'], ['rdcw-secret', 'secret-from-file']]) writeFileSync(join(dir.path, file!), `${value}\n`);
    const [slipok, rdcw] = load([
      { name: 's', provider: 'slipok', branchId: '1', apiKeyFile: join(dir.path, 'slipok-key') },
      { name: 'r', provider: 'rdcw', clientIdFile: join(dir.path, 'rdcw-id'), clientSecretFile: join(dir.path, 'rdcw-secret') },
    ]);
    expect(slipok).toMatchObject({ apiKey: 'key-from-file' });
    expect(rdcw).toMatchObject({ clientId: 'id-from-file', clientSecret: 'secret-from-file' });
  });

  it('name every mistake by entry and field, never echoing a secret', () => {
    const message = problems([
      { name: 's1', provider: 'slipok', branchId: 'BR-12', apiKey: 'SLIPOK-TOP-SECRET', apiKeyFile: '/run/secrets/k' },
      { name: 's2', provider: 'slipok', apiKey: 'SLIPOK-TOP-SECRET', readsPictures: 'yes' },
      { name: 'r1', provider: 'rdcw', clientId: 'i', clientSecret: 'RDCW-TOP-SECRET', clientSecretFile: '/nonexistent/s', baseUrl: 'ftp://rdcw' },
      { name: 'r2', provider: 'rdcw', clientSecret: 'RDCW-TOP-SECRET', branchId: '1' },
    ]);
    expect(message.split('\n').slice(1)).toEqual([
      '  UPSTREAMS[0] ("s1") branchId: must be the branch id SlipOK shows, digits only',
      '  UPSTREAMS[1] ("s2") readsPictures: must be a boolean',
      '  UPSTREAMS[1] ("s2") branchId: is required',
      '  UPSTREAMS[2] ("r1") baseUrl: must start with https:// (or http:// for a local simulator)',
      '  UPSTREAMS[3] ("r2"): unknown field "branchId"',
    ]);
    const secrets = problems([{ name: 's1', provider: 'slipok', branchId: '1', apiKey: 'SLIPOK-TOP-SECRET', apiKeyFile: '/run/secrets/k' }, { name: 'r1', provider: 'rdcw', clientSecret: 'RDCW-TOP-SECRET' }]);
    expect(secrets.split('\n').slice(1)).toEqual([
      '  UPSTREAMS[0] ("s1") apiKey: give apiKey or apiKeyFile, not both',
      '  UPSTREAMS[1] ("r1") clientId: is required (or clientIdFile, a file holding it)',
    ]);
    expect(message + secrets).not.toMatch(/TOP-SECRET/);
  });

  it('describe what is safe to log: no key, no secret', () => {
    const [slipok, rdcw] = load([{ name: 's', provider: 'slipok', branchId: '42', apiKey: 'SLIPOK-TOP-SECRET' }, { name: 'r', provider: 'rdcw', clientId: 'rd-id', clientSecret: 'RDCW-TOP-SECRET' }]);
    expect(describeUpstreamConfig(slipok!)).toEqual({ name: 's', provider: 'slipok', weight: 1, priority: 1, enabled: true, baseUrl: 'https://api.slipok.com', branchId: '42', readsPictures: false });
    expect(JSON.stringify(describeUpstreamConfig(rdcw!))).not.toMatch(/TOP-SECRET|rd-id/);
  });
});

describe.each([
  { provider: 'easyslip', secret: 'apiKey', defaultBaseUrl: 'https://api.easyslip.com' },
  { provider: 'slip2go', secret: 'apiSecret', defaultBaseUrl: 'https://connect.slip2go.com/api' },
])('$provider entries', ({ provider, secret, defaultBaseUrl }) => {
  it('defaults baseUrl to the public address, priority to 1 and readsPictures to false', () => {
    const [config] = load([{ name: 'a', provider, [secret]: 'the-secret' }]);
    expect(config).toEqual({
      name: 'a',
      provider,
      weight: 1,
      priority: 1,
      enabled: true,
      baseUrl: defaultBaseUrl,
      idleSocketTimeoutMs: 4_000,
      readsPictures: false,
      [secret]: 'the-secret',
    });
    expect(JSON.stringify(describeUpstreamConfig(config!))).not.toContain('the-secret');
  });

  it('keeps priority, readsPictures and a simulator baseUrl, and reads the secret from a file', () => {
    const dir = tempDir();
    dirs.push(dir);
    writeFileSync(join(dir.path, 'secret'), 'from-file\n');
    const [config] = load([{ name: 'b', provider, [`${secret}File`]: join(dir.path, 'secret'), baseUrl: 'http://127.0.0.1:9001/', priority: 2, readsPictures: true }]);
    expect(config).toMatchObject({ baseUrl: 'http://127.0.0.1:9001', priority: 2, readsPictures: true, [secret]: 'from-file' });
  });

  it('reports a missing secret, both forms at once, wrong types and unknown fields', () => {
    expect(problems([{ name: 'c', provider }])).toContain(`UPSTREAMS[0] ("c") ${secret}: is required (or ${secret}File, a file holding it)`);
    expect(problems([{ name: 'c', provider, [secret]: 's', [`${secret}File`]: '/run/secrets/s' }])).toContain(`${secret}: give ${secret} or ${secret}File, not both`);
    expect(problems([{ name: 'c', provider, [secret]: 's', readsPictures: 'yes', priority: 0 }])).toMatch(/priority: must be at least 1[\s\S]*readsPictures: must be a boolean/);
    expect(problems([{ name: 'c', provider, [secret]: 's', checkDuplicate: true }])).toContain('unknown field "checkDuplicate"');
  });
});
