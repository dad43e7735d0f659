// Where slipgate may POST events. https only, because the body names a
// payment; http only to a loopback host (a receiver on the same machine,
// tests). Never a link-local or cloud metadata address, and a loopback or
// private one only with WEBHOOK_ALLOW_PRIVATE=true (target-address.ts; a
// name is judged again by what it resolves to, at every connection). Never
// slipgate's own admin listener (the requests would carry slipgate's own
// traffic to its admin API), and no credentials in the URL (they would show
// in every listing).
import { isIP } from 'node:net';
import { hostClass, isLoopbackName, targetRefusal } from './target-address.js';

export interface AdminListener {
  host: string;
  port: number;
}

export type UrlCheck = { ok: true; url: string } | { ok: false; problem: string };

const MAX_URL_LENGTH = 2048;

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isLoopbackName(host)) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

const ANY_ADDRESS = new Set(['0.0.0.0', '::', '[::]']);

export interface UrlRules {
  /** Slipgate's own admin listener (null: unknown, e.g. tests). */
  admin: AdminListener | null;
  /** WEBHOOK_ALLOW_PRIVATE: loopback and private network addresses are accepted. */
  allowPrivate: boolean;
}

export function checkEndpointUrl(raw: string, { admin, allowPrivate }: UrlRules): UrlCheck {
  if (raw.length > MAX_URL_LENGTH) return { ok: false, problem: `the URL is longer than ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'not a valid absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, problem: 'the URL must use https' };
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) return { ok: false, problem: 'the URL must use https (http only for a loopback host such as 127.0.0.1 or localhost)' };
  if (url.username || url.password) return { ok: false, problem: 'the URL must not carry a user name or password' };
  if (url.hash) return { ok: false, problem: 'the URL must not carry a #fragment' };
  if (admin && pointsAtAdmin(url, admin)) return { ok: false, problem: "the URL points at slipgate's own admin listener" };
  const refusal = targetRefusal(hostClass(url.hostname), allowPrivate);
  if (refusal) return { ok: false, problem: refusal };
  return { ok: true, url: url.href };
}

function pointsAtAdmin(url: URL, admin: AdminListener): boolean {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (port !== admin.port) return false;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const adminHost = admin.host.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === adminHost) return true;
  // A listener on every address or on a loopback one answers any loopback name.
  return isLoopbackHost(host) && (ANY_ADDRESS.has(adminHost) || isLoopbackHost(adminHost));
}
