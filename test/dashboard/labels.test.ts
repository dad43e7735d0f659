// Every value of the GraphQL enums the dashboard shows has a label in
// English and in Thai (a new event type once showed as
// PAYMENT_REQUEST_SLIP_UNCONFIRMED on a Thai page). The enums are read from
// schema.graphql, which the schema test keeps equal to the served schema.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { en } from '../../dashboard/src/i18n/en.js';
import { enAccount } from '../../dashboard/src/i18n/en-account.js';
import { enAudit } from '../../dashboard/src/i18n/en-audit.js';
import { th } from '../../dashboard/src/i18n/th.js';
import { thAccount } from '../../dashboard/src/i18n/th-account.js';
import { thAudit } from '../../dashboard/src/i18n/th-audit.js';

const schema = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');

function enumValues(name: string): string[] {
  const body = new RegExp(`^enum ${name} \\{([^}]*)\\}`, 'm').exec(schema)?.[1];
  if (!body) throw new Error(`schema.graphql has no enum ${name}`);
  return body
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^[A-Z][A-Z0-9_]*$/.test(line));
}

const catalogs = { en: { ...en, ...enAccount, ...enAudit }, th: { ...th, ...thAccount, ...thAudit } };
type Catalog = (typeof catalogs)['en'];

const SHOWN: [string, (c: Catalog) => Record<string, string>][] = [
  ['WebhookEventType', (c) => c.webhooks.eventTypes],
  ['WebhookDeliveryState', (c) => c.webhooks.states],
  ['PaymentRequestStatus', (c) => c.payments.statuses],
  ['ErrorKind', (c) => c.errorKinds],
  ['LedgerKind', (c) => c.account.ledgerKinds],
  ['ReceiverPolicy', (c) => c.receivers.policies],
];

describe('dashboard labels', () => {
  it.each(SHOWN)('every %s has an English and a Thai label', (name, labels) => {
    const values = enumValues(name);
    expect(values.length).toBeGreaterThan(1);
    for (const [lang, catalog] of Object.entries(catalogs)) {
      const missing = values.filter((v) => !labels(catalog)[v]?.trim());
      expect(missing, `${lang} ${name}`).toEqual([]);
    }
    // A Thai label is Thai, not the English one or the raw value left in place.
    for (const v of values) expect(labels(catalogs.th)[v], v).toMatch(/[\u0E00-\u0E7F]/);
  });
});
