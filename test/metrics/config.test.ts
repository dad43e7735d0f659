// METRICS_TOKEN is checked at startup like every setting, and a bad one is never echoed.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('METRICS_TOKEN setting', () => {
  it('is optional and taken as given when long enough', () => {
    expect(loadConfig({}).METRICS_TOKEN).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: 'a-long-enough-token-1234' }).METRICS_TOKEN).toBe('a-long-enough-token-1234');
  });

  it.each([
    ['short-token', 'must be at least 16 characters'],
    ['has spaces in the token value', 'must be printable ASCII without spaces'],
  ])('refuses %j without showing it', (token, reason) => {
    let error: unknown;
    try {
      loadConfig({ METRICS_TOKEN: token });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain(`METRICS_TOKEN: ${reason} (got ${token.length} characters)`);
    expect(message).not.toContain(token);
  });
});
