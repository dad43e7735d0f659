// The last check before a webhook connects, on the address the connection
// would really use: never slipgate's own admin listener, never a link-local
// or cloud metadata address, and a loopback or private one only with
// WEBHOOK_ALLOW_PRIVATE=true (domain/webhooks/target-address.ts).
// Registration refuses the obvious URLs (domain/webhooks/endpoint-url.ts); a
// name that resolves to such an address (DNS rebinding, a hosts entry, a
// name of this host) is only caught here. The check runs inside the lookup
// the connection uses, on every address the name resolves to, so no second
// lookup can answer differently between the check and the connect.
import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { addressClass, embeddedIpv4, targetRefusal } from '../domain/webhooks/target-address.js';

/** What the sender refuses to connect to. */
export interface TargetGuard {
  /** The admin listener's port, never connected to on this host; null: unknown (tests of the sender alone). */
  adminPort: number | null;
  /** WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
}

/** This host's own addresses: loopback, unspecified, and every interface's. */
function ownAddresses(): Set<string> {
  const own = new Set(['0.0.0.0', '::', '::1']);
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) own.add(a.address);
  return own;
}

function isAdminListener(address: string, port: number, adminPort: number | null): boolean {
  if (adminPort === null || port !== adminPort) return false;
  const plain = embeddedIpv4(address);
  return plain.startsWith('127.') || ownAddresses().has(plain);
}

/** A refusal before connecting: its text is recorded on the attempt as it is (it names no port, only the rule). */
export class TargetRefusedError extends Error {
  override name = 'TargetRefusedError';
  readonly code = 'ETARGET';
}

const SELF = "the URL leads to slipgate's own admin listener";

/** Why connecting to `address` on `port` is refused, or null. */
function refusal(address: string, port: number, guard: TargetGuard): string | null {
  try {
    if (isAdminListener(address, port, guard.adminPort)) return SELF;
    return targetRefusal(addressClass(address), guard.allowPrivate);
  } catch {
    // An answer the rules cannot read is not connected to.
    return targetRefusal('forbidden', guard.allowPrivate);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** How names are resolved: dns.lookup (getaddrinfo, as every connection would), or a test's own resolver. */
export type Resolve = (hostname: string, options: LookupOptions & { all: true }, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/**
 * dns.lookup for one request to `port`: resolves every address of the name
 * and fails when any of them is refused (a name that answers a public and a
 * private address is refused whole: which one the connection would take is
 * not ours to choose).
 */
export function guardedLookup(port: number, guard: TargetGuard, resolve: Resolve = lookup) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = addresses.map((a) => refusal(a.address, port, guard)).find((r) => r !== null);
      if (refused) return callback(new TargetRefusedError(`refused: ${refused}`), []);
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

/** A literal IP in the URL is never looked up: checked here instead. Null when it may be reached (or is a name). */
export function literalRefusal(url: URL, guard: TargetGuard): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) === 0) return null;
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const refused = refusal(host, port, guard);
  return refused && `refused: ${refused}`;
}
