// Where checkout links point, and why there are none. PUBLIC_URL when set;
// otherwise, while the public listener listens on loopback (the quickstart),
// its own local address, so a link opens in a browser on the same machine.
// A listener reachable from elsewhere gets no guessed address: its outside
// name is only the operator's to say.
import type { Config } from '../../config.js';

const LOOPBACK = /^(127\.|::1$|localhost$|\[::1\]$)/;

export const isLoopbackHost = (host: string) => LOOPBACK.test(host);

/** `bound`: the public listener's address as it listens (PORT=0 picks one); absent: as configured (the CLI). */
export function checkoutBaseUrl(config: Pick<Config, 'PUBLIC_URL' | 'HOST' | 'PORT'>, bound?: string): string | undefined {
  if (config.PUBLIC_URL) return config.PUBLIC_URL;
  if (!isLoopbackHost(config.HOST)) return undefined;
  if (bound) return bound;
  return config.PORT === 0 ? undefined : `http://${config.HOST.includes(':') && !config.HOST.startsWith('[') ? `[${config.HOST}]` : config.HOST}:${config.PORT}`;
}

/** Why payment requests get `checkoutUrl: null` (the x-checkout-url-missing header, the startup line); null: they get links. */
export function checkoutLinksMissing(base: string | undefined, secretsKey: Buffer | undefined): string | null {
  if (!secretsKey) return 'SECRETS_KEY is not set (checkout links are signed with it)';
  if (!base) return 'PUBLIC_URL is not set and the public listener is not on loopback (docs/payments.md#checkout-page)';
  return null;
}
