// Which client addresses an API key may be used from. A key carries a list
// of CIDR ranges; an empty list means any address. Pure code, shared by the
// key services (validation) and the verify path (matching).
import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** Enough for any real deployment; keeps one key's check cheap. */
export const MAX_ALLOWED_RANGES = 100;

export type AllowListParse = { ok: true; ranges: string[] } | { ok: false; message: string };

const PREFIX = /^(0|[1-9][0-9]{0,2})$/;
const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * Strict: `address/prefix` with a plain IPv4 or IPv6 address (no zone id) and
 * a prefix in range, or a bare address meaning that one host. Host bits
 * must be zero, so a typo such as 10.0.0.1/8 is not silently widened.
 * Returns the ranges in canonical form, duplicates removed.
 */
export function parseAllowList(input: readonly string[]): AllowListParse {
  if (input.length > MAX_ALLOWED_RANGES) return { ok: false, message: `at most ${MAX_ALLOWED_RANGES} allowed IP ranges per key` };
  const ranges: string[] = [];
  for (const raw of input) {
    const range = parseRange(raw);
    if (typeof range !== 'string') return { ok: false, message: `invalid CIDR range ${JSON.stringify(raw)}: ${range.reason}` };
    if (!ranges.includes(range)) ranges.push(range);
  }
  return { ok: true, ranges };
}

function parseRange(raw: string): string | { reason: string } {
  const text = raw.trim();
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) && !address.includes('%') ? 'ipv6' : null;
  if (!family) return { reason: 'not an IPv4 or IPv6 address' };
  const max = family === 'ipv4' ? 32 : 128;
  const prefixText = slash === -1 ? String(max) : text.slice(slash + 1);
  if (!PREFIX.test(prefixText) || Number(prefixText) > max) return { reason: `prefix length must be 0 to ${max}` };
  const prefix = Number(prefixText);
  const bytes = toBytes(address, family);
  if (!hostBitsClear(bytes, prefix)) return { reason: 'address has bits set beyond the prefix length' };
  return `${formatAddress(bytes, family)}/${prefix}`;
}

/** True when `address` may use a key with these ranges. */
export function isAddressAllowed(ranges: readonly string[], address: string | undefined): boolean {
  if (ranges.length === 0) return true;
  if (!address) return false;
  const client = normaliseAddress(address);
  if (!client) return false;
  return blockListFor(ranges).check(client.address, client.family);
}

/** A client seen on a dual-stack socket as ::ffff:a.b.c.d is the IPv4 client a.b.c.d. */
function normaliseAddress(address: string): { address: string; family: 'ipv4' | 'ipv6' } | null {
  const mapped = MAPPED_V4.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return { address: mapped[1]!, family: 'ipv4' };
  if (isIPv4(address)) return { address, family: 'ipv4' };
  if (isIPv6(address)) return { address, family: 'ipv6' };
  return null;
}

// Keys are cached objects, so their lists are the same arrays request after request.
const lists = new WeakMap<readonly string[], BlockList>();

function blockListFor(ranges: readonly string[]): BlockList {
  let list = lists.get(ranges);
  if (list) return list;
  list = new BlockList();
  for (const range of ranges) {
    const [address, prefix] = range.split('/') as [string, string];
    list.addSubnet(address, Number(prefix), isIPv4(address) ? 'ipv4' : 'ipv6');
  }
  lists.set(ranges, list);
  return list;
}

function toBytes(address: string, family: 'ipv4' | 'ipv6'): number[] {
  if (family === 'ipv4') return address.split('.').map(Number);
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

function hostBitsClear(bytes: number[], prefix: number): boolean {
  return bytes.every((byte, i) => {
    const kept = Math.max(0, Math.min(8, prefix - i * 8));
    return (byte & (0xff >> kept)) === 0;
  });
}

function formatAddress(bytes: number[], family: 'ipv4' | 'ipv6'): string {
  if (family === 'ipv4') return bytes.join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16));
  // The longest run of zero groups (two or more) becomes '::'.
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j;
  }
  if (best.length < 2) return groups.join(':');
  return `${groups.slice(0, best.start).join(':')}::${groups.slice(best.start + best.length).join(':')}`;
}
