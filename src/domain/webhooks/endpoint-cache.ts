// The delivery worker's view of endpoints: each read from the store at most
// once a second, and each signing secret opened (AES-GCM) once. At 1,000
// events a second over many accounts, reading each claim's endpoints was
// nearly a statement per event on the answering loop, for rows that never
// change: an endpoint is only ever added or removed (no secret rotation, no
// URL change). A removal made anywhere reaches the worker within
// ENDPOINT_TTL_MS; a delivery attempted meanwhile was written while the
// endpoint still listened.
import type { Store } from '../ports/store.js';
import type { SecretBox } from '../secret-box.js';
import type { WebhookEndpoint } from './types.js';

const ENDPOINT_TTL_MS = 1_000;
/** Entries kept at most; past it the cache starts afresh (a bound, not an eviction policy). */
const MAX_ENTRIES = 1_000;

export class EndpointCache {
  private readonly endpoints = new Map<string, { found: Promise<WebhookEndpoint | null>; readAt: number }>();
  /** By endpoint id and sealed value. Never logged. */
  private readonly openedSecrets = new Map<string, string>();

  constructor(
    private readonly store: Store,
    private readonly secrets: SecretBox,
  ) {}

  /** The endpoint as read at most ENDPOINT_TTL_MS ago; a failed read is not kept. */
  get(id: string, now = performance.now()): Promise<WebhookEndpoint | null> {
    const cached = this.endpoints.get(id);
    if (cached && now - cached.readAt < ENDPOINT_TTL_MS) return cached.found;
    const found = this.store.getWebhookEndpoint(id);
    if (this.endpoints.size >= MAX_ENTRIES) this.endpoints.clear();
    this.endpoints.set(id, { found, readAt: now });
    found.catch(() => {
      if (this.endpoints.get(id)?.found === found) this.endpoints.delete(id);
    });
    return found;
  }

  /** The endpoint's signing secret in clear; throws when it cannot be opened (SECRETS_KEY missing or changed). */
  secretOf(endpoint: WebhookEndpoint): string {
    const key = `${endpoint.id}\n${endpoint.sealedSecret}`;
    let secret = this.openedSecrets.get(key);
    if (secret === undefined) {
      secret = this.secrets.open(endpoint.sealedSecret);
      if (this.openedSecrets.size >= MAX_ENTRIES) this.openedSecrets.clear();
      this.openedSecrets.set(key, secret);
    }
    return secret;
  }
}
