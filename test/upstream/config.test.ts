// UPSTREAMS / UPSTREAMS_FILE: what is accepted, and that every mistake is
// reported by entry and field without echoing secrets.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { describeUpstreamConfig, loadUpstreamConfigs, UpstreamConfigError } from '../../src/upstream/config.js';
import { tempDir } from '../helpers/temp.js';

const dirs: { path: string; remove(): void }[] = [];
afterEach(() => dirs.splice(0).forEach((d) => d.remove()));
function scratch(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir.path;
}

const kbank = {
  name: 'kbank-main',
  provider: 'kbank',
  baseUrl: 'https://openapi.kasikornbank.com/',
  clientId: 'kb-client',
  clientSecret: 'kb-TOP-SECRET',
};
const scb = {
  name: 'scb-main',
  provider: 'scb',
  baseUrl: 'https://api-sandbox.partners.scb/partners/sandbox',
  apiKey: 'scb-key',
  apiSecret: 'scb-TOP-SECRET',
  weight: 3,
};
const load = (entries: unknown) => loadUpstreamConfigs({ UPSTREAMS: typeof entries === 'string' ? entries : JSON.stringify(entries) });

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

describe('loadUpstreamConfigs', () => {
  it('returns no domains when neither variable is set (sandbox mode)', () => {
    expect(loadUpstreamConfigs({})).toEqual([]);
    expect(loadUpstreamConfigs({ UPSTREAMS: '', UPSTREAMS_FILE: '  ' })).toEqual([]);
  });

  it('reads every provider, with defaults', () => {
    expect(load([kbank, scb, { name: 'practice', provider: 'sandbox' }])).toEqual([
      {
        name: 'kbank-main',
        provider: 'kbank',
        weight: 1,
        priority: 1,
        enabled: true,
        baseUrl: 'https://openapi.kasikornbank.com',
        idleSocketTimeoutMs: 4000,
        clientId: 'kb-client',
        clientSecret: 'kb-TOP-SECRET',
      },
      {
        name: 'scb-main',
        provider: 'scb',
        weight: 3,
        priority: 1,
        enabled: true,
        baseUrl: 'https://api-sandbox.partners.scb/partners/sandbox',
        idleSocketTimeoutMs: 4000,
        apiKey: 'scb-key',
        apiSecret: 'scb-TOP-SECRET',
      },
      { name: 'practice', provider: 'sandbox', weight: 1, priority: 1, enabled: true },
    ]);
  });

  it('reads a priority on every provider and rejects one that is not a whole number from 1 to 100', () => {
    const configs = load([{ ...kbank, priority: 2 }, { ...scb, priority: 100 }, { name: 'practice', provider: 'sandbox', priority: 3 }]);
    expect(configs.map((c) => c.priority)).toEqual([2, 100, 3]);
    expect(describeUpstreamConfig(configs[0]!)).toMatchObject({ name: 'kbank-main', priority: 2 });
    const { message } = errorOf(() => load([{ ...kbank, priority: 0 }, { ...scb, priority: 1.5 }, { name: 'practice', provider: 'sandbox', priority: 101 }]));
    expect(message).toContain('UPSTREAMS[0] ("kbank-main") priority: must be at least 1 (1 is tried first)');
    expect(message).toContain('UPSTREAMS[1] ("scb-main") priority: must be a whole number');
    expect(message).toContain('UPSTREAMS[2] ("practice") priority: must be at most 100');
  });

  it('reads UPSTREAMS_FILE, with secret and TLS files relative to it', () => {
    const dir = scratch();
    mkdirSync(join(dir, 'secrets'));
    writeFileSync(join(dir, 'secrets', 'id'), 'kb-client-from-file\n');
    writeFileSync(join(dir, 'secrets', 'secret'), 'kb-secret-from-file\n');
    writeFileSync(join(dir, 'client.pem'), '-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----\n');
    writeFileSync(join(dir, 'client.key'), '-----BEGIN PRIVATE KEY-----\nBBB\n-----END PRIVATE KEY-----\n');
    const entry = {
      name: 'kbank-mtls',
      provider: 'kbank',
      baseUrl: 'https://openapi.kasikornbank.com',
      clientIdFile: 'secrets/id',
      clientSecretFile: join(dir, 'secrets', 'secret'),
      tls: { certFile: 'client.pem', keyFile: 'client.key' },
      weight: 2,
      enabled: true,
    };
    writeFileSync(join(dir, 'upstreams.json'), JSON.stringify([entry]));
    const [config] = loadUpstreamConfigs({ UPSTREAMS_FILE: join(dir, 'upstreams.json') });
    expect(config).toMatchObject({ clientId: 'kb-client-from-file', clientSecret: 'kb-secret-from-file', weight: 2 });
    expect(config).toMatchObject({ tls: { cert: expect.stringContaining('BEGIN CERTIFICATE'), key: expect.stringContaining('BEGIN PRIVATE KEY') } });
    expect(describeUpstreamConfig(config!)).toEqual({ name: 'kbank-mtls', provider: 'kbank', baseUrl: 'https://openapi.kasikornbank.com', weight: 2, priority: 1, enabled: true, mutualTls: true });
  });

  it('throws a ConfigError the CLI reports plainly', () => {
    const err = errorOf(() => load('{'));
    expect(err).toBeInstanceOf(UpstreamConfigError);
    expect(err).toBeInstanceOf(ConfigError);
  });

  it('reports invalid JSON without quoting it (it may hold secrets)', () => {
    const err = errorOf(() => load(`[{"name": "k", "clientSecret": "kb-TOP-SECRET" oops}]`));
    expect(err.message).toMatch(/^UPSTREAMS is not valid JSON/);
    expect(err.message).not.toContain('TOP-SECRET');
  });

  it.each([
    ['{}', 'UPSTREAMS must be a JSON array of domain configurations'],
    ['[]', 'UPSTREAMS lists no domains; leave it unset to run the sandbox'],
  ])('rejects %s', (json, message) => {
    expect(errorOf(() => load(json)).message).toBe(message);
  });

  it('rejects setting both variables', () => {
    expect(errorOf(() => loadUpstreamConfigs({ UPSTREAMS: '[]', UPSTREAMS_FILE: '/x.json' })).message).toBe('set UPSTREAMS or UPSTREAMS_FILE, not both');
  });

  it('names an unreadable UPSTREAMS_FILE', () => {
    expect(errorOf(() => loadUpstreamConfigs({ UPSTREAMS_FILE: '/nonexistent/upstreams.json' })).message).toBe(
      'UPSTREAMS_FILE: cannot read "/nonexistent/upstreams.json" (ENOENT)',
    );
  });

  it('lists every problem at once, by entry and field', () => {
    const err = errorOf(() =>
      load([
        { ...kbank, baseUrl: 'ftp://bank', weight: 0, clientSecert: 'typo' },
        { name: 'scb main', provider: 'scb', baseUrl: 'https://scb.example', apiKey: 'k', apiSecret: 's', apiSecretFile: '/run/secrets/s' },
        { name: 'x', provider: 'kbak' },
        'kbank',
        { provider: 'sandbox', weight: '2' },
        { name: 'k2', provider: 'kbank', baseUrl: 'https://user:pw@bank.example', clientIdFile: '/nonexistent/id' },
      ]),
    );
    expect(err.message).toBe(
      [
        'invalid UPSTREAMS:',
        '  UPSTREAMS[0] ("kbank-main") weight: must be greater than 0',
        '  UPSTREAMS[0] ("kbank-main") baseUrl: must start with https:// (or http:// for a local simulator)',
        '  UPSTREAMS[0] ("kbank-main"): unknown field "clientSecert"',
        '  UPSTREAMS[1] ("scb main") name: must be 1-64 characters: letters, digits, ".", "_" or "-", starting with a letter or digit',
        '  UPSTREAMS[2] ("x") provider: must be one of "kbank", "scb", "sandbox", "slipok", "rdcw", "easyslip", "slip2go" (got "kbak")',
        '  UPSTREAMS[3]: must be an object such as {"name": "kbank-1", "provider": "kbank", ...}',
        '  UPSTREAMS[4] name: is required',
        '  UPSTREAMS[4] weight: must be a number',
        '  UPSTREAMS[5] ("k2") baseUrl: must not contain credentials; use the credential fields',
      ].join('\n'),
    );
    expect(err.message).not.toContain('TOP-SECRET');
  });

  it('takes idleSocketTimeoutMs for bank domains, in whole milliseconds within bounds', () => {
    expect(load([{ ...kbank, idleSocketTimeoutMs: 2500 }, { ...scb, idleSocketTimeoutMs: 100 }]).map((c) => 'idleSocketTimeoutMs' in c && c.idleSocketTimeoutMs)).toEqual([2500, 100]);
    const err = errorOf(() =>
      load([
        { ...kbank, idleSocketTimeoutMs: 99 },
        { ...scb, idleSocketTimeoutMs: 1.5 },
        { ...scb, name: 's2', idleSocketTimeoutMs: '4000' },
        { ...kbank, name: 'k2', idleSocketTimeoutMs: 300_001 },
        { name: 'practice', provider: 'sandbox', idleSocketTimeoutMs: 1000 },
      ]),
    );
    expect(err.message).toBe(
      [
        'invalid UPSTREAMS:',
        '  UPSTREAMS[0] ("kbank-main") idleSocketTimeoutMs: must be at least 100 (milliseconds)',
        '  UPSTREAMS[1] ("scb-main") idleSocketTimeoutMs: must be a whole number',
        '  UPSTREAMS[2] ("s2") idleSocketTimeoutMs: must be a number',
        '  UPSTREAMS[3] ("k2") idleSocketTimeoutMs: must be at most 300000 (5 minutes)',
        '  UPSTREAMS[4] ("practice"): unknown field "idleSocketTimeoutMs"',
      ].join('\n'),
    );
  });

  it('requires each credential inline or from a file, not both', () => {
    const err = errorOf(() =>
      load([
        { name: 'k', provider: 'kbank', baseUrl: 'https://bank.example', clientIdFile: '/nonexistent/id' },
        { name: 's', provider: 'scb', baseUrl: 'https://scb.example', apiKey: 'k', apiSecret: 's', apiSecretFile: '/run/secrets/s' },
      ]),
    );
    expect(err.message).toBe(
      [
        'invalid UPSTREAMS:',
        '  UPSTREAMS[0] ("k") clientIdFile: cannot read "/nonexistent/id" (ENOENT)',
        '  UPSTREAMS[0] ("k") clientSecret: is required (or clientSecretFile, a file holding it)',
        '  UPSTREAMS[1] ("s") apiSecret: give apiSecret or apiSecretFile, not both',
      ].join('\n'),
    );
  });

  it('checks secret and TLS files', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'empty'), '\n');
    writeFileSync(join(dir, 'not-pem'), 'hello');
    const err = errorOf(() =>
      load([
        { ...kbank, clientSecret: undefined, clientSecretFile: join(dir, 'empty'), tls: { certFile: join(dir, 'not-pem'), keyFile: join(dir, 'missing') } },
        { ...kbank, name: 'plain', baseUrl: 'http://127.0.0.1:9001', tls: { certFile: join(dir, 'not-pem') } },
      ]),
    );
    const lines = err.message.split('\n').map((l) => l.replaceAll(dir, '<dir>'));
    expect(lines).toEqual([
      'invalid UPSTREAMS:',
      '  UPSTREAMS[0] ("kbank-main") clientSecretFile: "<dir>/empty" is empty',
      '  UPSTREAMS[0] ("kbank-main") tls.certFile: "<dir>/not-pem" is not a PEM file',
      '  UPSTREAMS[0] ("kbank-main") tls.keyFile: cannot read "<dir>/missing" (ENOENT)',
      '  UPSTREAMS[1] ("plain") tls.keyFile: is required',
    ]);
  });

  it('requires https for mutual TLS', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'c.pem'), '-----BEGIN CERTIFICATE-----\n');
    writeFileSync(join(dir, 'k.pem'), '-----BEGIN PRIVATE KEY-----\n');
    const err = errorOf(() => load([{ ...kbank, baseUrl: 'http://127.0.0.1:9001', tls: { certFile: join(dir, 'c.pem'), keyFile: join(dir, 'k.pem') } }]));
    expect(err.message).toBe('invalid UPSTREAMS:\n  UPSTREAMS[0] ("kbank-main") tls: needs an https:// baseUrl');
  });

  it('requires unique names and at least one enabled domain', () => {
    expect(errorOf(() => load([kbank, { ...scb, name: 'kbank-main' }, kbank])).message).toBe(
      'invalid UPSTREAMS:\n  name "kbank-main" is used by 3 entries; names must be unique',
    );
    expect(errorOf(() => load([{ ...kbank, enabled: false }])).message).toBe(
      'invalid UPSTREAMS:\n  every domain has "enabled": false; enable at least one',
    );
  });

  it('labels entries of UPSTREAMS_FILE by position in the file', () => {
    const dir = scratch();
    const file = join(dir, 'upstreams.json');
    writeFileSync(file, JSON.stringify([{ ...scb, apiKey: '' }]));
    expect(errorOf(() => loadUpstreamConfigs({ UPSTREAMS_FILE: file })).message).toBe(
      `invalid UPSTREAMS_FILE (${file}):\n  entry[0] ("scb-main") apiKey: must not be empty`,
    );
  });
});
