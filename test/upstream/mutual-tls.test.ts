// KBank over mutual TLS: the client certificate, key and CA named in the
// domain configuration reach the HTTPS agent.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { buildUpstream } from '../../src/upstream/build.js';
import { loadUpstreamConfigs } from '../../src/upstream/config.js';
import type { UpstreamPool } from '../../src/upstream/pool.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { startFakeKbank, type FakeKbank } from '../fakes/kbank-server.js';
import { withQr } from '../helpers/slip-query.js';

const tlsFile = (name: string) => fileURLToPath(new URL(`../fakes/tls/${name}`, import.meta.url));
const read = (name: string) => readFileSync(tlsFile(name), 'utf8');

let bank: FakeKbank;
let upstream: UpstreamPool;
afterEach(async () => {
  await upstream.close();
  await bank.close();
});

async function setUp(tls: Record<string, string> | undefined) {
  bank = await startFakeKbank({ tls: { cert: read('server.pem'), key: read('server.key'), ca: read('ca.pem') } });
  const { clientId, clientSecret } = bank.config();
  const entry = { name: 'kbank-mtls', provider: 'kbank', baseUrl: bank.url, clientId, clientSecret, ...(tls ? { tls } : {}) };
  upstream = buildUpstream(loadUpstreamConfigs({ UPSTREAMS: JSON.stringify([entry]) }), { sandbox: () => new SandboxUpstream() });
}

const query = withQr({ sendingBank: '004', transRef: 'MTLS0001', requestId: 'req_mtls' });

describe('KBank over mutual TLS', () => {
  it('verifies with the configured client certificate and bank CA', async () => {
    await setUp({ certFile: tlsFile('client.pem'), keyFile: tlsFile('client.key'), caFile: tlsFile('ca.pem') });
    expect(bank.url).toMatch(/^https:/);
    expect(await upstream.verify(query, AbortSignal.timeout(5_000))).toMatchObject({ ok: true, upstream: 'kbank-mtls' });
    expect(bank.calls).toMatchObject({ token: 1, verify: 1 });
  });

  it('fails as an upstream error, not an outage, when the bank certificate is not trusted', async () => {
    await setUp(undefined);
    const result = await upstream.verify(query, AbortSignal.timeout(5_000));
    expect(result).toMatchObject({ ok: false, kind: 'upstream_error', upstream: 'kbank-mtls' });
    expect(bank.calls.token).toBe(0);
  });
});
