// The last check before a webhook connects: never to slipgate's own admin
// listener, whatever name led there. Registration refuses the obvious URLs
// (domain/webhooks/endpoint-url.ts); a name that resolves to this host
// (DNS rebinding, a hosts entry) or one of its own addresses is only caught
// here, on the address the connection would really use.
import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** This host's own addresses: loopback, unspecified, and every interface's. */
function ownAddresses(): Set<string> {
  const own = new Set(['0.0.0.0', '::', '::1']);
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) own.add(a.address);
  return own;
}

/** An IPv4-mapped IPv6 address (::ffff:127.0.0.1, or ::ffff:7f00:1 as URL parsing writes it) as its IPv4 address. */
function unmapped(address: string): string {
  const lower = address.toLowerCase();
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const [a, b] = [Number.parseInt(hex[1]!, 16), Number.parseInt(hex[2]!, 16)];
    return [a >> 8, a & 255, b >> 8, b & 255].join('.');
  }
  return lower.replace(/^::ffff:/, '');
}

function isAdminListener(address: string, port: number, adminPort: number): boolean {
  if (port !== adminPort) return false;
  const plain = unmapped(address);
  return plain.startsWith('127.') || ownAddresses().has(plain);
}

export class SelfRequestError extends Error {
  override name = 'SelfRequestError';
  constructor() {
    super("refused: the URL leads to slipgate's own admin listener");
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup for one request to `port`, failing when an answer is the admin listener. */
export function guardedLookup(port: number, adminPort: number) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    lookup(hostname, { ...options }, (err, address: string | LookupAddress[], family?: number) => {
      if (err) return callback(err, address, family);
      const addresses = Array.isArray(address) ? address.map((a) => a.address) : [address];
      if (addresses.some((a) => isAdminListener(a, port, adminPort))) return callback(Object.assign(new SelfRequestError(), { code: 'ESELF' }), address, family);
      callback(null, address, family);
    });
  };
}

/** A literal IP in the URL is never looked up: checked here instead. */
export function literalIsAdminListener(url: URL, adminPort: number): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return isIP(host) !== 0 && isAdminListener(host, port, adminPort);
}
