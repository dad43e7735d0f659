// A Content-Security-Policy for a page rendered whole on the server with its
// script and styles inline (GraphiQL): only the inline scripts it was rendered
// with may run (by their SHA-256, so an injected <script> cannot), requests go
// to this origin only, and nothing may frame it or post it elsewhere.
import { createHash } from 'node:crypto';

const INLINE_SCRIPT = /<script>([\s\S]*?)<\/script>/g;

export function inlinePagePolicy(html: string): string {
  const hashes = [...html.matchAll(INLINE_SCRIPT)].map((m) => `'sha256-${createHash('sha256').update(m[1]!, 'utf8').digest('base64')}'`);
  return [
    "default-src 'none'",
    `script-src ${hashes.join(' ') || "'none'"}`,
    // GraphiQL's editor runs its language services in workers made from blob: URLs.
    'worker-src blob:',
    // Its styles are inline and its editor sets style attributes.
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
