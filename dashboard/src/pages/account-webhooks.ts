// The account page's webhooks: the endpoints (never their secrets) and the
// latest deliveries with their last attempt, each with a redeliver button
// for the roles that may use it (SUPPORT, ADMIN; the API enforces it).
import { gql } from '../api.js';
import { canChangeCredits, describeError, roleName, type Me } from '../context.js';
import { h } from '../dom.js';
import { formatCount, formatMs } from '../format.js';
import { t } from '../i18n/index.js';
import { badge, dataTable, empty, time } from '../ui.js';

export interface WebhookAttempt {
  at: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookDeliveryRow {
  id: string;
  eventId: string;
  type: string;
  state: 'PENDING' | 'DELIVERED' | 'FAILED';
  nextAttemptAt: string | null;
  createdAt: string;
  attempts: WebhookAttempt[];
}

export interface AccountWebhooks {
  webhookEndpoints: { id: string; url: string; events: string[]; createdAt: string }[];
  webhookDeliveries: { nodes: WebhookDeliveryRow[] };
}

/** The fields account.ts adds to its query. */
export const WEBHOOK_FIELDS = `
    webhookEndpoints { id url events createdAt }
    webhookDeliveries(first: 10) { nodes { id eventId type state nextAttemptAt createdAt attempts { at statusCode error durationMs } } }`;

const REDELIVER = `mutation Redeliver($id: ID!) { redeliverWebhook(id: $id, reason: "dashboard") { id state } }`;

const STATE_TONE = { PENDING: 'warn', DELIVERED: 'ok', FAILED: 'bad' } as const;

export function webhooksSection(data: AccountWebhooks, me: Me, announce: (message: string) => void): HTMLElement {
  const m = t().webhooks;
  return h(
    'section',
    { 'aria-labelledby': 'webhooks-h', 'data-testid': 'webhooks' },
    h('h2', { id: 'webhooks-h' }, m.heading),
    h('h3', {}, m.endpointsCaption),
    data.webhookEndpoints.length === 0
      ? empty(m.noEndpoints)
      : dataTable(
          m.endpointsCaption,
          [{ label: m.url }, { label: m.events }, { label: m.created }],
          data.webhookEndpoints.map((e) => [h('code', {}, e.url), e.events.map((type) => m.eventTypes[type] ?? type).join(', '), time(e.createdAt)]),
          { captionHidden: true },
        ),
    h('h3', {}, m.deliveriesCaption),
    data.webhookDeliveries.nodes.length === 0 ? empty(m.noDeliveries) : deliveries(data.webhookDeliveries.nodes, me, announce),
  );
}

function deliveries(rows: WebhookDeliveryRow[], me: Me, announce: (message: string) => void): HTMLElement {
  const m = t().webhooks;
  return dataTable(
    m.deliveriesCaption,
    [{ label: m.time }, { label: m.event }, { label: m.state }, { label: m.lastAttempt }, { label: m.attempts, numeric: true }, { label: m.next }, { label: m.action }],
    rows.map((d) => {
      const last = d.attempts.at(-1);
      return [
        time(d.createdAt),
        h('span', { title: d.eventId }, m.eventTypes[d.type] ?? d.type),
        badge(m.states[d.state], STATE_TONE[d.state]),
        last ? `${last.error ?? `${last.statusCode} ${m.ok}`} · ${formatMs(last.durationMs)}` : h('span', { class: 'muted' }, m.notYet),
        formatCount(d.attempts.length),
        time(d.nextAttemptAt),
        redeliverButton(d, me, announce),
      ];
    }),
    { captionHidden: true },
  );
}

function redeliverButton(d: WebhookDeliveryRow, me: Me, announce: (message: string) => void): HTMLElement {
  const m = t().webhooks;
  if (!canChangeCredits(me)) return h('button', { type: 'button', class: 'secondary gated', disabled: true, title: t().app.forbidden(roleName(me.role)) }, m.redeliver);
  const button = h('button', { type: 'button', class: 'secondary', 'data-delivery': d.id }, m.redeliver);
  button.addEventListener('click', () => {
    button.disabled = true;
    gql<{ redeliverWebhook: { state: string } }>(REDELIVER, { id: d.id }).then(
      () => {
        button.textContent = m.queued;
        announce(m.queued);
      },
      (err: unknown) => {
        button.disabled = false;
        announce(describeError(err, me));
      },
    );
  });
  return button;
}
