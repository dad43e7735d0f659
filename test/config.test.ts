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

  it('keeps personal data 365 days unless told otherwise; 0 or "off" keeps it forever; a negative or non-numeric period is refused', () => {
    expect(loadConfig({}).RETENTION_DAYS).toBe(365);
    expect(loadConfig({ RETENTION_DAYS: '30' }).RETENTION_DAYS).toBe(30);
    expect(loadConfig({ RETENTION_DAYS: '0' }).RETENTION_DAYS).toBe(0);
    expect(loadConfig({ RETENTION_DAYS: 'off' }).RETENTION_DAYS).toBe(0);
    for (const bad of ['-1', 'abc', '1.5', '36501', ' 5', 'OFF']) {
      expect(() => loadConfig({ RETENTION_DAYS: bad })).toThrow(`RETENTION_DAYS: must be a whole number of days from 0 to 36500, or "off" (0 and "off" keep personal data forever) (got "${bad}")`);
    }
    expect(loadConfig({}).RETENTION_INTERVAL_MINUTES).toBe(60);
    expect(loadConfig({ RETENTION_INTERVAL_MINUTES: '5' }).RETENTION_INTERVAL_MINUTES).toBe(5);
    for (const bad of ['0', '-5', 'hourly', '10081']) {
      expect(() => loadConfig({ RETENTION_INTERVAL_MINUTES: bad })).toThrow(/RETENTION_INTERVAL_MINUTES: must be a whole number of minutes from 1 to 10080/);
    }
  });

  it('pushes the LINE daily summary at 21:00 Bangkok unless told another HH:MM or off; anything else is refused', () => {
    expect(loadConfig({}).LINE_SUMMARY_AT).toBe('21:00');
    expect(loadConfig({ LINE_SUMMARY_AT: '07:30' }).LINE_SUMMARY_AT).toBe('07:30');
    expect(loadConfig({ LINE_SUMMARY_AT: 'off' }).LINE_SUMMARY_AT).toBe('off');
    for (const bad of ['24:00', '9:00', '21:60', 'nine']) {
      expect(() => loadConfig({ LINE_SUMMARY_AT: bad })).toThrow(/LINE_SUMMARY_AT: must be a Bangkok time as HH:MM \(00:00 to 23:59\), or "off"/);
    }
  });
});
