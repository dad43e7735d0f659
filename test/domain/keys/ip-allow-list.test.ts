import { describe, expect, it } from 'vitest';
import { isAddressAllowed, MAX_ALLOWED_RANGES, parseAllowList } from '../../../src/domain/keys/ip-allow-list.js';

describe('IP allow-lists', () => {
  it('accepts IPv4 and IPv6 ranges and bare addresses, in canonical form without duplicates', () => {
    expect(parseAllowList(['127.0.0.1', '10.0.0.0/8', ' 10.0.0.0/8 ', '::1', '2001:DB8:0:0::/32', '0.0.0.0/0', '::/0'])).toEqual({
      ok: true,
      ranges: ['127.0.0.1/32', '10.0.0.0/8', '::1/128', '2001:db8::/32', '0.0.0.0/0', '::/0'],
    });
    expect(parseAllowList([])).toEqual({ ok: true, ranges: [] });
  });

  it.each([
    ['localhost', 'not an IPv4 or IPv6 address'],
    ['10.0.0.300/32', 'not an IPv4 or IPv6 address'],
    ['fe80::1%eth0/64', 'not an IPv4 or IPv6 address'],
    ['1.2.3.4/33', 'prefix length must be 0 to 32'],
    ['2001:db8::/129', 'prefix length must be 0 to 128'],
    ['10.0.0.0/08', 'prefix length must be 0 to 32'],
    ['10.0.0.0/', 'prefix length must be 0 to 32'],
    ['10.0.0.0/8/8', 'prefix length must be 0 to 32'],
    ['10.0.0.1/8', 'address has bits set beyond the prefix length'],
    ['2001:db8::1/64', 'address has bits set beyond the prefix length'],
  ])('refuses %s, naming it', (range, reason) => {
    const parsed = parseAllowList(['127.0.0.1/32', range]);
    expect(parsed).toEqual({ ok: false, message: `invalid CIDR range ${JSON.stringify(range)}: ${reason}` });
  });

  it('refuses more ranges than a key may carry', () => {
    const many = Array.from({ length: MAX_ALLOWED_RANGES + 1 }, (_, i) => `10.0.${i}.0/24`);
    expect(parseAllowList(many).ok).toBe(false);
  });

  it('matches addresses, IPv4-mapped IPv6 as IPv4', () => {
    const ranges = ['127.0.0.1/32', '10.0.0.0/8', '2001:db8::/32'];
    expect(isAddressAllowed(ranges, '127.0.0.1')).toBe(true);
    expect(isAddressAllowed(ranges, '::ffff:127.0.0.1')).toBe(true);
    expect(isAddressAllowed(ranges, '::FFFF:10.200.3.4')).toBe(true);
    expect(isAddressAllowed(ranges, '2001:db8:ffff::1')).toBe(true);
    expect(isAddressAllowed(ranges, '127.0.0.2')).toBe(false);
    expect(isAddressAllowed(ranges, '::1')).toBe(false);
    expect(isAddressAllowed(ranges, '2001:db9::1')).toBe(false);
    expect(isAddressAllowed(ranges, undefined)).toBe(false);
    expect(isAddressAllowed(ranges, 'garbage')).toBe(false);
    expect(isAddressAllowed([], undefined)).toBe(true);
    expect(isAddressAllowed(['::1/128'], '::1')).toBe(true);
  });
});
