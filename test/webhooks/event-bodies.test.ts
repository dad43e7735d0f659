// What every event type's body carries: no PromptPay id, account number or
// name (docs/webhooks.md lists each type's `data`, and says so). Each type is
// built by the code that writes it, from a request and a verification full of
// a sole trader's personal data (a phone number and a national ID as
// PromptPay targets, names in Thai and English, account numbers, the bank's
// raw answer); the whole body is walked, keys and values. A new event type
// fails here until it has a builder below.
import { describe, expect, it } from 'vitest';
import { lateTransferEvent, paymentEvent } from '../../src/domain/payments/events.js';
import { promptPayPayload } from '../../src/domain/payments/promptpay.js';
import { targetOf } from '../../src/domain/payments/target.js';
import type { PaymentRequest } from '../../src/domain/payments/types.js';
import type { Receiver, VerifyTransactionRecord } from '../../src/domain/types.js';
import { outboxRecords, verificationSucceeded } from '../../src/domain/webhooks/events.js';
import { creditsLowEvent } from '../../src/domain/accounts/credits-low.js';
import type { WebhookEvent } from '../../src/client/webhooks.js';
import { slipUnconfirmedEvent, verificationUnconfirmedEvent } from '../../src/domain/rechecks/view.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../src/domain/webhooks/types.js';

const PHONE = '0812345678';
const NATIONAL_ID = '1101700203451';
const SENDER_ACCOUNT = '1234567890';
const NAMES = ['สมชาย ใจดี', 'SOMCHAI JAIDEE', 'ร้านกาแฟ ดีดี', 'DEEDEE COFFEE'];

const receiver = (number: string, proxyType: 'MSISDN' | 'NATID'): Receiver => ({
  id: 'rcv_sole_trader',
  accountId: 'acc_shop',
  kind: 'promptpay',
  bankCode: null,
  number,
  proxyType,
  nameTh: NAMES[2]!,
  nameEn: NAMES[3]!,
  label: 'front till',
  active: true,
  createdAt: new Date('2026-01-01T00:00:00Z'),
});

const at = new Date('2026-01-02T03:04:05Z');
const recheck = (qrcode: string) => ({
  ...{ id: 'vt_2', accountId: 'acc_shop', keyId: 'key_1', requestId: 'req_2', paymentRequestId: 'pr_1', qrcode, sendingBank: '004', transRef: 'TX123' },
  ...{ options: null, createdAt: at, deadline: at, nextAttemptAt: at, attempts: 3, attemptId: null, outcome: null, finishedAt: null, result: null, lineChannelId: null, lineUserId: null },
});
const request = (target: Receiver, status: PaymentRequest['status']): PaymentRequest => ({
  id: 'pr_1',
  accountId: 'acc_shop',
  receiverId: target.id,
  target: targetOf(target),
  successUrl: null,
  reference: 'order-123',
  amount: 25_000,
  requestedAmount: 25_000,
  uniqueAmount: false,
  promptpay: promptPayPayload(target, 25_000),
  status,
  createdAt: at,
  expiresAt: new Date(at.getTime() + 15 * 60_000),
  paidAt: status === 'paid' ? at : null,
  paidBy: status === 'paid' ? { verificationId: 'vt_1', transactionId: 'TX123', sendingBank: '004', amount: 25_000, transferredAt: at } : null,
  closedAt: status === 'expired' ? at : null,
});

const verification = (target: Receiver): VerifyTransactionRecord => ({
  id: 'vt_1',
  accountId: 'acc_shop',
  keyId: 'key_1',
  requestId: 'req_1',
  qrcode: '004100060000000000000000TX1235102TH9104ABCD',
  transactionId: 'TX123',
  amount: 250,
  sendingBank: '004',
  receivingBank: '014',
  upstream: 'sandbox',
  latencyMs: 12,
  response: {
    amount: 250,
    dateTime: '2026-01-02T10:04:05+07:00',
    timestamp: at.getTime(),
    transactionId: 'TX123',
    senderBankAccountNumber: SENDER_ACCOUNT,
    senderName: NAMES[0]!,
    senderNameEN: NAMES[1]!,
    senderBank: 'KBANK',
    senderBankCode: '004',
    receiverBankAccountNumber: '',
    receiverName: NAMES[2]!,
    receiverNameEN: NAMES[3]!,
    receiverBank: 'SCB',
    receiverBankCode: '014',
    receiverPromptpay: target.number,
    receiverProxyType: target.proxyType!,
    rawData: { receiver: { proxy: { value: target.number } }, sender: { account: { value: SENDER_ACCOUNT } } },
  },
  createdAt: at,
  source: 'qrcode',
});

/** The body each event type is sent with, as the code that writes it builds it. */
const BUILDERS: Record<WebhookEventType, (target: Receiver) => string> = {
  'verification.succeeded': (target) => outboxRecords(verificationSucceeded(verification(target)), 'acc_shop', ['whe_1'])[0]!.body,
  'payment_request.paid': (target) => paymentEvent('payment_request.paid', ['whe_1'], () => at)(request(target, 'paid'))[0]!.body,
  'payment_request.expired': (target) => paymentEvent('payment_request.expired', ['whe_1'], () => at)(request(target, 'expired'))[0]!.body,
  'payment_request.late_transfer': (target) =>
    lateTransferEvent(['whe_1'], () => at)(request(target, 'expired'), { verificationId: 'vt_1', transactionId: 'TX123', sendingBank: '004', amount: 25_000, transferredAt: at })[0]!.body,
  'account.credits_low': () => outboxRecords(creditsLowEvent({ accountId: 'acc_shop', credits: 9, threshold: 10 }, at), 'acc_shop', ['whe_1'])[0]!.body,
  'payment_request.slip_unconfirmed': (target) =>
    slipUnconfirmedEvent(['whe_1'], at)(request(target, 'pending'), recheck(verification(target).qrcode), 'not_confirmed')[0]!.body,
  'verification.unconfirmed': (target) => verificationUnconfirmedEvent(['whe_1'], at)(recheck(verification(target).qrcode), 'no_credit')[0]!.body,
};

/** Field names that would carry a PromptPay id, an account number or a name. */
const PERSONAL_KEY = /promptpay|proxy|account(number)?$|accountNo|name|national|phone|msisdn|rawData/i;

function walk(value: unknown, path: string, found: string[]): void {
  if (typeof value === 'string') {
    const digits = value.replace(/\D/g, '');
    const personal = [PHONE, PHONE.slice(1), NATIONAL_ID, SENDER_ACCOUNT].some((v) => digits.includes(v)) || NAMES.some((n) => value.includes(n));
    // EMVCo payloads start 000201: a QR of a PromptPay target is personal data whole.
    if (personal || value.startsWith('000201')) found.push(`${path} = ${value}`);
    return;
  }
  if (Array.isArray(value)) return value.forEach((v, i) => walk(v, `${path}[${i}]`, found));
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (PERSONAL_KEY.test(k)) found.push(`${path}.${k} (key)`);
      walk(v, `${path}.${k}`, found);
    }
  }
}

describe('webhook event bodies carry no PromptPay id, account number or name', () => {
  it('the SDK types every event type, and only those', () => {
    // Checked by the compiler: the SDK's union names exactly the types slipgate sends.
    type Sdk = WebhookEvent['type'];
    const same: [Sdk] extends [WebhookEventType] ? ([WebhookEventType] extends [Sdk] ? true : false) : false = true;
    expect(same).toBe(true);
  });

  it('every event type has a builder here', () => {
    expect(Object.keys(BUILDERS).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
  });

  it.each(WEBHOOK_EVENT_TYPES.flatMap((type) => [[type, 'a phone number'], [type, 'a national ID']] as const))('%s, receiver PromptPay by %s', (type, by) => {
    const target = by === 'a phone number' ? receiver(PHONE, 'MSISDN') : receiver(NATIONAL_ID, 'NATID');
    const body = JSON.parse(BUILDERS[type](target)) as { type: string; data: Record<string, unknown> };
    expect(body.type).toBe(type);
    const found: string[] = [];
    walk(body, '$', found);
    expect(found).toEqual([]);
  });

  it.each(WEBHOOK_EVENT_TYPES)('%s tells every time in Bangkok time (+07:00), as the rest of the API does', (type) => {
    const body = JSON.parse(BUILDERS[type](receiver(PHONE, 'MSISDN'))) as { createdAt: string };
    expect(body.createdAt).toBe('2026-01-02T10:04:05.000+07:00');
    const times: string[] = [];
    JSON.stringify(body, (_key, value: unknown) => {
      if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) times.push(value);
      return value;
    });
    // createdAt at least; account.credits_low carries no other time.
    expect(times.length).toBeGreaterThanOrEqual(type === 'account.credits_low' ? 1 : 2);
    for (const time of times) expect(time).toMatch(/\+07:00$/);
  });

  it('payment events keep the receiver by its id, and the public GET keeps the QR payload', async () => {
    const target = receiver(PHONE, 'MSISDN');
    const body = JSON.parse(BUILDERS['payment_request.paid'](target)) as { data: Record<string, unknown> };
    expect(body.data).toMatchObject({ id: 'pr_1', reference: 'order-123', receiver: 'rcv_sole_trader', status: 'paid' });
    const { paymentFacts } = await import('../../src/domain/payments/events.js');
    expect(paymentFacts(request(target, 'paid')).promptpay).toMatch(/^000201/);
  });
});
