// What staff do to webhook endpoints (GraphQL, dashboard, CLI): register one
// for an account (its signing secret is returned then and never again),
// list, remove, and redeliver a delivery. Every change is an admin event and
// a log line naming its actor, like the account changes (admin/actions.ts).
import { newId } from '../keys/api-key.js';
import { recordAdminEvent } from '../admin/events.js';
import { InputError } from '../errors.js';
import type { ChangeLog } from '../ports/logger.js';
import { StoreError, type Store } from '../ports/store.js';
import { checkEndpointUrl, type AdminListener } from './endpoint-url.js';
import type { SecretBox } from '../secret-box.js';
import { generateWebhookSecret } from './signature.js';
import { isWebhookEventType, WEBHOOK_EVENT_TYPES, type WebhookEndpoint, type WebhookEndpointView, type WebhookEventType } from './types.js';

export interface WebhookEndpointsDeps {
  store: Store;
  secrets: SecretBox;
  /** Where slipgate's own admin listener is, so no endpoint points at it (null: unknown, e.g. tests). */
  adminListener: AdminListener | null;
  /** WEBHOOK_ALLOW_PRIVATE: loopback and private network URLs are accepted (default: refused). */
  allowPrivate?: boolean;
  /** Evicts this process's subscription cache at once. */
  forgetAccount?: (accountId: string) => void;
  log?: ChangeLog;
  now?: () => Date;
}

export interface RegisteredEndpoint {
  endpoint: WebhookEndpointView;
  /** The signing secret: shown once, never stored in clear when SECRETS_KEY is set, never returned again. */
  secret: string;
}

/** The endpoint without its secret: what every surface shows. */
export function endpointView({ sealedSecret: _secret, ...view }: WebhookEndpoint): WebhookEndpointView {
  return view;
}

/** Event type names as given (CLI --events, GraphQL): known, at least one, each once. */
export function parseEventTypes(names: readonly string[] | undefined): WebhookEventType[] {
  if (names === undefined) return [...WEBHOOK_EVENT_TYPES];
  const unique = [...new Set(names.map((n) => n.trim()).filter((n) => n.length > 0))];
  if (unique.length === 0) throw new InputError(`events must name at least one of: ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  const unknown = unique.filter((n) => !isWebhookEventType(n));
  if (unknown.length > 0) throw new InputError(`unknown event type ${unknown.map((n) => JSON.stringify(n)).join(', ')}; known: ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  return unique as WebhookEventType[];
}

/** As long as a generated one's 256 bits in base64 at least; never a space or a line break. */
const OWN_SECRET = /^[\x21-\x7e]{32,512}$/;

export class WebhookEndpoints {
  private readonly now: () => Date;

  constructor(private readonly deps: WebhookEndpointsDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** `secret`: the operator's own signing secret (one the receiver already has); else a new one. */
  async add(actor: string, accountId: string, input: { url: string; events?: readonly string[]; reason?: string | null; secret?: string }): Promise<RegisteredEndpoint> {
    if (input.secret !== undefined && !OWN_SECRET.test(input.secret)) throw new InputError('a signing secret must be 32 to 512 printable ASCII characters without spaces');
    const checked = checkEndpointUrl(input.url.trim(), { admin: this.deps.adminListener, allowPrivate: this.deps.allowPrivate ?? false });
    if (!checked.ok) throw new InputError(`webhook URL refused: ${checked.problem}`);
    const events = parseEventTypes(input.events);
    const account = await this.deps.store.getAccount(accountId);
    if (!account || account.deletedAt) throw new StoreError('not_found', 'account not found');
    const secret = input.secret ?? generateWebhookSecret();
    const endpoint: WebhookEndpoint = { id: newId('whe'), accountId, url: checked.url, events, sealedSecret: this.deps.secrets.seal(secret), createdAt: this.now(), removedAt: null };
    await this.deps.store.createWebhookEndpoint(endpoint);
    this.deps.forgetAccount?.(accountId);
    await this.change(actor, 'addWebhookEndpoint', endpoint.id, input.reason, { accountId, url: endpoint.url, events }, 'webhook endpoint added');
    return { endpoint: endpointView(endpoint), secret };
  }

  /** Deleted accounts too (their endpoints stay listed until removed); an unknown account is not found. */
  async list(accountId: string): Promise<WebhookEndpointView[]> {
    if (!(await this.deps.store.getAccount(accountId))) throw new StoreError('not_found', 'account not found');
    return (await this.deps.store.listWebhookEndpoints(accountId)).map(endpointView);
  }

  async remove(actor: string, endpointId: string, reason?: string | null): Promise<WebhookEndpointView> {
    const found = await this.deps.store.getWebhookEndpoint(endpointId);
    if (!found || found.removedAt) throw new StoreError('not_found', 'webhook endpoint not found');
    if (!(await this.deps.store.removeWebhookEndpoint(endpointId, this.now()))) throw new StoreError('not_found', 'webhook endpoint not found');
    this.deps.forgetAccount?.(found.accountId);
    await this.change(actor, 'removeWebhookEndpoint', endpointId, reason, { accountId: found.accountId, url: found.url }, 'webhook endpoint removed');
    return endpointView((await this.deps.store.getWebhookEndpoint(endpointId)) ?? found);
  }

  /** Sends the delivery's event again now (its attempts are kept); the worker picks it up. */
  async redeliver(actor: string, deliveryId: string, reason?: string | null): Promise<void> {
    const delivery = await this.deps.store.getWebhookDelivery(deliveryId);
    if (!delivery || !(await this.deps.store.redeliverWebhook(deliveryId, this.now()))) throw new StoreError('not_found', 'webhook delivery not found');
    await this.change(actor, 'redeliverWebhook', deliveryId, reason, { accountId: delivery.accountId, endpointId: delivery.endpointId, eventId: delivery.eventId }, 'webhook redelivery requested');
  }

  private async change(actor: string, action: string, targetId: string, reason: string | null | undefined, details: Record<string, unknown>, message: string) {
    const why = reason?.trim() || null;
    this.deps.log?.info({ action, actor, targetId, reason: why, ...details }, message);
    await recordAdminEvent(this.deps.store, this.now(), { actor, action, targetId, reason: why, details });
  }
}
