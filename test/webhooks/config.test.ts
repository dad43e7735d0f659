// The webhook settings: SECRETS_KEY's form (never echoed back), a claim
// that outlives one attempt, and private targets off unless said.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('webhook configuration', () => {
  it('reads SECRETS_KEY as 32 bytes, hex or base64, and refuses anything else without echoing it', () => {
    const hex = 'ab'.repeat(32);
    expect(loadConfig({ SECRETS_KEY: hex }).SECRETS_KEY).toEqual(Buffer.from(hex, 'hex'));
    expect(loadConfig({ SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') }).SECRETS_KEY).toEqual(Buffer.alloc(32, 7));
    expect(loadConfig({}).SECRETS_KEY).toBeUndefined();
    const short = 'deadbeef-not-a-key';
    expect(() => loadConfig({ SECRETS_KEY: short })).toThrow(/SECRETS_KEY: must be 32 bytes.*\(got 18 characters\)/);
    try {
      loadConfig({ SECRETS_KEY: short });
    } catch (err) {
      expect(String(err)).not.toContain(short);
    }
  });

  it('defaults to a 10 s attempt, 3 days of retries, and refuses a lease no longer than the timeout', () => {
    const c = loadConfig({});
    expect([c.WEBHOOK_TIMEOUT_MS, c.WEBHOOK_RETRY_WINDOW_MS, c.WEBHOOK_LEASE_MS]).toEqual([10_000, 3 * 86_400_000, 60_000]);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_LEASE_MS: '5000' })).toThrow(/WEBHOOK_LEASE_MS: must be longer than WEBHOOK_TIMEOUT_MS/);
  });

  it('refuses private webhook targets unless WEBHOOK_ALLOW_PRIVATE says true', () => {
    expect(loadConfig({}).WEBHOOK_ALLOW_PRIVATE).toBe(false);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' }).WEBHOOK_ALLOW_PRIVATE).toBe(true);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'no' }).WEBHOOK_ALLOW_PRIVATE).toBe(false);
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'maybe' })).toThrow(/WEBHOOK_ALLOW_PRIVATE: must be true or false/);
  });
});
