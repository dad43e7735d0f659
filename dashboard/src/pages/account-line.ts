// The account page's LINE channels (docs/line.md): which LINE Official
// Accounts answer slips for this account, in which language, with which
// options. The channel secret and access token are never readable: the API
// only ever answers them masked.
import { h } from '../dom.js';
import { t } from '../i18n/index.js';
import { badge, dataTable, empty, time } from '../ui.js';

export interface AccountLine {
  lineChannels: { channelId: string; lang: 'TH' | 'EN'; checks: boolean; matchPaymentRequests: boolean; hints: boolean; credentials: string; createdAt: string }[];
}

/** The fields account.ts adds to its query. */
export const LINE_FIELDS = `
    lineChannels { channelId lang checks matchPaymentRequests hints credentials createdAt }`;

export function lineSection(data: AccountLine): HTMLElement {
  const m = t().line;
  return h(
    'section',
    { 'aria-labelledby': 'line-h', 'data-testid': 'line-channels' },
    h('h2', { id: 'line-h' }, m.heading),
    data.lineChannels.length === 0
      ? empty(m.none)
      : dataTable(
          m.caption,
          [{ label: m.channel }, { label: m.webhook }, { label: m.lang }, { label: m.checks }, { label: m.paymentRequests }, { label: m.hints }, { label: m.credentials }, { label: m.connected }],
          data.lineChannels.map((c) => [
            h('code', {}, c.channelId),
            h('code', {}, `/line/webhook/${c.channelId}`),
            m.langs[c.lang],
            badge(c.checks ? m.on : m.off, c.checks ? 'ok' : 'neutral'),
            badge(c.matchPaymentRequests ? m.on : m.off, 'neutral'),
            badge(c.hints ? m.on : m.off, 'neutral'),
            h('span', { class: 'muted' }, c.credentials),
            time(c.createdAt),
          ]),
          { captionHidden: true },
        ),
  );
}
