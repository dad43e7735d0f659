// UPSTREAMS entries of the slip APIs (EasySlip, Slip2Go): the provider's
// public address by default, the secret inline or from a file, priority and
// readsPictures kept for the pool, strict about unknown fields, and nothing
// secret in what is logged.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeUpstreamConfig, loadUpstreamConfigs } from '../../src/upstream/config.js';
import { tempDir } from '../helpers/temp.js';

const dirs: { remove(): void }[] = [];
afterEach(() => dirs.splice(0).forEach((d) => d.remove()));

const load = (entries: unknown[]) => loadUpstreamConfigs({ UPSTREAMS: JSON.stringify(entries) });
const problems = (entries: unknown[]) => {
  try {
    load(entries);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected the entries to be refused');
};

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
