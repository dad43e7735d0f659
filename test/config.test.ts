// Configuration errors are clear and never echo a secret.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('names a bad DATABASE_URL without printing its password', () => {
    const attempt = () => loadConfig({ DATABASE_URL: 'mysql://admin:S3cretPw@db.internal/slipgate' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/DATABASE_URL: must start with sqlite:.*mysql:\/\/\*\*\*@db\.internal\/slipgate/s);
    expect(attempt).not.toThrow(/S3cretPw|admin:/);
  });

  it('defaults the hold recovery window to the network budget plus a minute', () => {
    expect(loadConfig({}).HOLD_STALE_MS).toBe(70_000);
    expect(loadConfig({ UPSTREAM_TIMEOUT_MS: '5000' }).HOLD_STALE_MS).toBe(65_000);
  });

  it('beats the lease every 2 s unless told otherwise, and refuses a heartbeat out of range', () => {
    expect(loadConfig({}).LEASE_HEARTBEAT_MS).toBe(2_000);
    expect(loadConfig({ LEASE_HEARTBEAT_MS: '500' }).LEASE_HEARTBEAT_MS).toBe(500);
    for (const bad of ['50', '60001', '1.5', 'soon']) {
      expect(() => loadConfig({ LEASE_HEARTBEAT_MS: bad })).toThrow(/LEASE_HEARTBEAT_MS: .*\(got "/);
    }
  });
});
