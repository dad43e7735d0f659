// Which addresses a webhook may connect to. A webhook URL is chosen by
// whoever registers it, and the delivery runs from inside the operator's
// network: without this, an endpoint can aim at the cloud's metadata service
// (instance credentials), at the database beside slipgate, or at anything
// else only the server can reach. Checked at registration on the URL's host
// (domain/webhooks/endpoint-url.ts) and again by the sender on every address
// a name resolves to, before connecting (src/webhooks/self-guard.ts), so a
// name that changes what it resolves to (DNS rebinding) cannot pass either.
import { BlockList, isIP } from 'node:net';

/**
 * `forbidden`: never (link-local, cloud metadata services, addresses that are
 * no single host); `private`: loopback and private networks, only with
 * WEBHOOK_ALLOW_PRIVATE=true; `public`: anything else.
 */
export type AddressClass = 'public' | 'private' | 'forbidden';

function blockList(v4: readonly string[], v6: readonly string[]): BlockList {
  const list = new BlockList();
  const add = (cidr: string, type: 'ipv4' | 'ipv6') => {
    const [network, prefix] = cidr.split('/') as [string, string | undefined];
    if (prefix === undefined) list.addAddress(network, type);
    else list.addSubnet(network, Number(prefix), type);
  };
  for (const cidr of v4) add(cidr, 'ipv4');
  for (const cidr of v6) add(cidr, 'ipv6');
  return list;
}

const FORBIDDEN = blockList(
  [
    '169.254.0.0/16', // link-local; 169.254.169.254 is AWS, GCP, Azure and most clouds' metadata service
    '100.100.100.200', // Alibaba Cloud's metadata service (inside the CGNAT range below)
    '224.0.0.0/4', // multicast
    '240.0.0.0/4', // reserved, and the broadcast address
  ],
  [
    'fe80::/10', // link-local
    'fd00:ec2::254', // AWS's metadata service over IPv6 (inside fc00::/7 below)
    'ff00::/8', // multicast
  ],
);

const PRIVATE = blockList(
  [
    '0.0.0.0/8', // "this host": connecting to 0.0.0.0 reaches the local machine
    '127.0.0.0/8', // loopback
    '10.0.0.0/8',
    '172.16.0.0/12',
    '192.168.0.0/16',
    '100.64.0.0/10', // carrier-grade NAT, also used inside clouds
  ],
  [
    '::/128', // unspecified: reaches the local machine
    '::1/128', // loopback
    'fc00::/7', // unique local
    '::/96', // IPv4-compatible (deprecated): never a public host
  ],
);

/** IPv6 forms that carry an IPv4 address the packets really go to: mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d). */
const EMBEDDING_V4 = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/;

/** The IPv4 address inside an IPv4-mapped or NAT64 IPv6 address, else the address as given (lower case, no brackets). */
export function embeddedIpv4(address: string): string {
  const plain = address.replace(/^\[|\]$/g, '').toLowerCase();
  const m = EMBEDDING_V4.exec(plain);
  if (!m) return plain;
  if (m[1]) return m[1];
  const [a, b] = [Number.parseInt(m[2]!, 16), Number.parseInt(m[3]!, 16)];
  return [a >> 8, a & 255, b >> 8, b & 255].join('.');
}

/** The class of an IP address (v4 or v6, brackets allowed); anything that is not one is `forbidden`. */
export function addressClass(address: string): AddressClass {
  const ip = embeddedIpv4(address);
  const family = isIP(ip);
  if (family === 0) return 'forbidden';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (FORBIDDEN.check(ip, type)) return 'forbidden';
  if (PRIVATE.check(ip, type)) return 'private';
  return 'public';
}

/** Names of cloud metadata services, refused at registration before any lookup (their addresses are refused at connect time too). */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

/** Names every resolver answers with a loopback address (RFC 6761). */
export function isLoopbackName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/**
 * The class of a URL's host as far as it can be told without a lookup: an IP
 * literal by its address, loopback and metadata names by name; any other
 * name is `public` here and judged by what it resolves to when connecting.
 */
export function hostClass(hostname: string): AddressClass {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  if (isIP(embeddedIpv4(host)) !== 0) return addressClass(host);
  if (METADATA_NAMES.has(host)) return 'forbidden';
  if (isLoopbackName(host)) return 'private';
  return 'public';
}

/** Why a target of this class is refused, or null when it may be reached. The texts name no port: they read the same for every one. */
export function targetRefusal(cls: AddressClass, allowPrivate: boolean): string | null {
  if (cls === 'forbidden') return 'the URL leads to a link-local, cloud metadata or non-unicast address';
  if (cls === 'private' && !allowPrivate) return 'the URL leads to a loopback or private network address (allowed only with WEBHOOK_ALLOW_PRIVATE=true)';
  return null;
}
