// The public listener keeps to the contract: POST /api/v1/verify and what
// an operator switched on, nothing else; health is the admin listener's.
// What `doctor --go-live` asks through the proxy is a challenge header on a
// keyless verify request: the 1020 answer's body is the contract's, byte for
// byte, and only its headers carry the proof that only a slipgate holding
// the same SECRETS_KEY can give, and how many X-Forwarded-For addresses
// arrived (to compare with TRUST_PROXY_HOPS).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instanceProof } from '../../src/domain/admin/instance-proof.js';
import { startApp, type TestApp } from '../helpers/app.js';

const KEY = '3c'.repeat(32);
const CONTRACT_1020 = '{"status":"error","code":1020,"message":"api key is missing"}';

describe('the public listener', () => {
  let keyed: TestApp;
  let keyless: TestApp;
  beforeAll(async () => {
    keyed = await startApp({ env: { SECRETS_KEY: KEY } });
    keyless = await startApp();
  });
  afterAll(async () => {
    await keyed?.stop();
    await keyless?.stop();
  });

  it.each(['/healthz', '/', '/graphql', '/metrics', '/api/v1/other', '/readyz', '/healthz?challenge=Zm9vYmFyYmF6cXV4LTEyMzQ1'])('GET %s is the same JSON 404', async (path) => {
    const res = await fetch(keyed.publicUrl + path);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ status: 'error', message: 'not found' });
  });

  it('while the admin listener answers health', async () => {
    expect(await (await fetch(`${keyed.adminUrl}/healthz`)).json()).toEqual({ status: 'ok' });
  });

  const challenged = async (app: TestApp, headers: Record<string, string>) => {
    const res = await fetch(`${app.publicUrl}/api/v1/verify`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
    expect(res.status).toBe(401);
    expect(await res.text()).toBe(CONTRACT_1020);
    return res.headers;
  };

  it('a 1020 without a well-formed challenge carries nothing more', async () => {
    for (const bad of [undefined, 'short', 'x'.repeat(129), 'has space in it xxxxxxx']) {
      const headers = await challenged(keyed, bad === undefined ? {} : { 'x-slipgate-challenge': bad });
      expect(headers.get('x-slipgate-proof'), bad).toBeNull();
      expect(headers.get('x-slipgate-forwarded-for'), bad).toBeNull();
    }
  });

  it("a challenged 1020 proves the deployment's SECRETS_KEY without revealing it, and counts the X-Forwarded-For addresses", async () => {
    const challenge = 'Zm9vYmFyYmF6cXV4LTEyMzQ1';
    const headers = await challenged(keyed, { 'x-slipgate-challenge': challenge, 'x-forwarded-for': '198.51.100.7, 10.0.0.2' });
    expect(headers.get('x-slipgate-proof')).toBe(instanceProof(Buffer.from(KEY, 'hex'), challenge));
    expect(headers.get('x-slipgate-proof')).not.toBe(instanceProof(Buffer.from('3d'.repeat(32), 'hex'), challenge));
    expect(headers.get('x-slipgate-forwarded-for')).toBe('2');
    expect([...headers.values()].join(' ')).not.toContain(KEY);
    // A different challenge, a different proof: an old answer cannot be replayed.
    expect((await challenged(keyed, { 'x-slipgate-challenge': `${challenge}X` })).get('x-slipgate-proof')).not.toBe(headers.get('x-slipgate-proof'));
    // A key that is sent is judged as ever: a challenge changes nothing of a 1021.
    const wrong = await fetch(`${keyed.publicUrl}/api/v1/verify`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'slip_nope', 'x-slipgate-challenge': challenge }, body: '{}' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('x-slipgate-proof')).toBeNull();
    const none = await challenged(keyless, { 'x-slipgate-challenge': challenge });
    expect(none.get('x-slipgate-proof')).toBeNull();
    expect(none.get('x-slipgate-forwarded-for')).toBe('0');
  });
});
