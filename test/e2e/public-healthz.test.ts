// GET /healthz on the public listener: what `doctor --go-live` calls through
// the proxy. Plain, it says only "ok"; with a challenge, the proof that
// only a slipgate holding the same SECRETS_KEY can give, and how many
// X-Forwarded-For addresses arrived (to compare with TRUST_PROXY_HOPS).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instanceProof } from '../../src/domain/admin/instance-proof.js';
import { startApp, type TestApp } from '../helpers/app.js';

const KEY = '3c'.repeat(32);

describe('public GET /healthz', () => {
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
  const health = async (app: TestApp, query = '', headers: Record<string, string> = {}) => {
    const res = await fetch(`${app.publicUrl}/healthz${query}`, { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/.+/);
    return (await res.json()) as Record<string, unknown>;
  };

  it('answers ok, and nothing more without a well-formed challenge', async () => {
    expect(await health(keyed)).toEqual({ status: 'ok' });
    for (const bad of ['?challenge=short', `?challenge=${'x'.repeat(129)}`, '?challenge=has%20space%20in%20it%20xx', '?challenge=a&challenge=b']) {
      expect(await health(keyed, bad), bad).toEqual({ status: 'ok' });
    }
  });

  it("proves the deployment's SECRETS_KEY without revealing it, and counts the X-Forwarded-For addresses it got", async () => {
    const challenge = 'Zm9vYmFyYmF6cXV4LTEyMzQ1';
    const answer = await health(keyed, `?challenge=${challenge}`, { 'x-forwarded-for': '198.51.100.7, 10.0.0.2' });
    expect(answer).toEqual({ status: 'ok', forwardedFor: 2, proof: instanceProof(Buffer.from(KEY, 'hex'), challenge) });
    expect(answer.proof).not.toBe(instanceProof(Buffer.from('3d'.repeat(32), 'hex'), challenge));
    expect(JSON.stringify(answer)).not.toContain(KEY);
    // A different challenge, a different proof: an old answer cannot be replayed.
    expect((await health(keyed, `?challenge=${challenge}X`)).proof).not.toBe(answer.proof);
    expect(await health(keyless, `?challenge=${challenge}`)).toEqual({ status: 'ok', forwardedFor: 0, proof: null });
  });
});
