// Receivers and the receiver policy through GraphQL: who may change them,
// every refused input (a clear BAD_USER_INPUT, nothing changed), the admin
// event trail, and the policy applied to the next verification at once.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/log.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { dataOf, errorCodes, startGraphqlApp, type GqlResponse, type GraphqlTestApp } from './helpers.js';

const ADD = `mutation ($accountId: ID!, $bankCode: String, $accountNumber: String, $promptPay: String, $name: String, $nameEn: String, $label: String) {
  addReceiver(accountId: $accountId, bankCode: $bankCode, accountNumber: $accountNumber, promptPay: $promptPay, name: $name, nameEn: $nameEn, label: $label) {
    id accountId kind bankCode number proxyType name nameEn label active
  }
}`;
const POLICY = `mutation ($accountId: ID!, $policy: ReceiverPolicy!) { setReceiverPolicy(accountId: $accountId, policy: $policy) { id receiverPolicy } }`;
const ACTIVE = `mutation ($accountId: ID!, $receiverId: ID!, $active: Boolean!) { setReceiverActive(accountId: $accountId, receiverId: $receiverId, active: $active) { id active } }`;
const REMOVE = `mutation ($accountId: ID!, $receiverId: ID!) { removeReceiver(accountId: $accountId, receiverId: $receiverId) { id } }`;
const READ = `query ($id: ID!) { account(id: $id) { receiverPolicy receivers { id number active label } adminEvents { action actor details } } }`;

describe('GraphQL admin API: receivers', () => {
  let app: GraphqlTestApp;
  /** The server's log lines, info and up: every change is one, naming its actor. */
  const logs: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (logs.push(JSON.parse(chunk.toString()) as Record<string, unknown>), done()) });
    app = await startGraphqlApp({ logger: createLogger('info', sink) });
  });
  afterAll(() => app?.stop());

  const message = (res: GqlResponse): string | undefined => res.body?.errors?.[0]?.message;

  it('support and admin add receivers and set the policy; a viewer reads them and may change nothing', async () => {
    const { accountId } = await app.account(1);
    const bank = { accountId, bankCode: '014', accountNumber: '123-3-13109-0', name: 'บจก. ดีดี', label: 'สาขา 1' };
    const viewer = await app.gql('viewer', ADD, bank);
    expect(errorCodes(viewer)).toEqual(['FORBIDDEN']);
    expect(await app.store.listReceivers(accountId)).toEqual([]);

    const added = dataOf(await app.gql('support', ADD, bank)).addReceiver;
    expect(added).toMatchObject({ accountId, kind: 'BANK', bankCode: '014', number: '1233131090', proxyType: null, name: 'บจก. ดีดี', label: 'สาขา 1', active: true });
    const pp = dataOf(await app.gql('admin', ADD, { accountId, promptPay: '66812345678', nameEn: 'DEEDEE CO' })).addReceiver;
    expect(pp).toMatchObject({ kind: 'PROMPTPAY', number: '0812345678', proxyType: 'MSISDN', name: null, nameEn: 'DEEDEE CO' });

    expect(errorCodes(await app.gql('viewer', POLICY, { accountId, policy: 'REQUIRE' }))).toEqual(['FORBIDDEN']);
    expect(dataOf(await app.gql('support', POLICY, { accountId, policy: 'REQUIRE' })).setReceiverPolicy).toEqual({ id: accountId, receiverPolicy: 'REQUIRE' });

    const read = dataOf(await app.gql('viewer', READ, { id: accountId })).account;
    expect(read.receiverPolicy).toBe('REQUIRE');
    expect(read.receivers.map((r: { id: string }) => r.id)).toEqual([added.id, pp.id]);
    expect(read.adminEvents.map((e: { action: string }) => e.action)).toEqual(['setReceiverPolicy', 'addReceiver', 'addReceiver']);
    expect(read.adminEvents[0].actor).toMatch(/^admin:.*support-token/);
    expect(read.adminEvents[0].details).toEqual({ from: 'off', to: 'require' });
    // A receiver's event names it by id and last digits: a PromptPay id may be a person's national ID.
    expect(read.adminEvents[2].details).toMatchObject({ receiverId: added.id, kind: 'bank', bankCode: '014', numberEnd: '1090', label: 'สาขา 1' });
    expect(JSON.stringify(read.adminEvents)).not.toContain('1233131090');
    const changes = logs.filter((l) => l.targetId === accountId).map((l) => [l.action, l.msg, String(l.actor).includes('support-token') || String(l.actor).includes('admin-token')]);
    expect(changes).toEqual([
      ['addReceiver', 'receiver registered', true],
      ['addReceiver', 'receiver registered', true],
      ['setReceiverPolicy', 'receiver policy changed', true],
    ]);
    expect(JSON.stringify(logs)).not.toContain('1233131090');
  });

  it('refuses bad input with a clear message and changes nothing', async () => {
    const { accountId } = await app.account(1);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ bankCode: '999', accountNumber: '1234567890', name: 'ร้าน' }, /unknown bank code "999"/],
      [{ bankCode: '004', accountNumber: '12345678', name: 'ร้าน' }, /KBANK \(004\) account number has 10 digits, not 8/],
      [{ promptPay: '1234567890122', name: 'ร้าน' }, /fails its check digit/],
      [{ promptPay: '0812345678', name: 'ร้าน\u0000ดี' }, /name must not contain control characters/],
      [{ promptPay: '0812345678', name: 'ร้าน', label: 'a\nb' }, /label must not contain control characters/],
      [{ promptPay: '0812345678', name: 'x'.repeat(121) }, /at most 120 characters/],
      [{ promptPay: '0812345678' }, /needs the name its bank prints/],
      [{ promptPay: '0812345678', bankCode: '004', accountNumber: '1234567890', name: 'ร้าน' }, /either a bank account .* or a PromptPay ID/],
    ];
    for (const [input, why] of cases) {
      const res = await app.gql('support', ADD, { accountId, ...input });
      expect(errorCodes(res)).toEqual(['BAD_USER_INPUT']);
      expect(message(res)).toMatch(why);
    }
    const noReceiver = await app.gql('support', POLICY, { accountId, policy: 'REQUIRE' });
    expect(errorCodes(noReceiver)).toEqual(['BAD_USER_INPUT']);
    expect(message(noReceiver)).toMatch(/require needs at least one active registered receiver/);
    expect(errorCodes(await app.gql('support', ADD, { accountId: 'acc_missing', promptPay: '0812345678', name: 'ร้าน' }))).toEqual(['NOT_FOUND']);

    const read = dataOf(await app.gql('viewer', READ, { id: accountId })).account;
    expect(read).toEqual({ receiverPolicy: 'OFF', receivers: [], adminEvents: [] });
  });

  it("never changes another account's receiver, nor the last active one of a require account", async () => {
    const mine = await app.account(1);
    const theirs = await app.account(1);
    const theirReceiver = dataOf(await app.gql('support', ADD, { accountId: theirs.accountId, promptPay: '0899999999', name: 'ร้านอื่น' })).addReceiver;
    for (const [query, extra] of [
      [ACTIVE, { active: false }],
      [REMOVE, {}],
    ] as const) {
      const res = await app.gql('support', query, { accountId: mine.accountId, receiverId: theirReceiver.id, ...extra });
      expect(errorCodes(res)).toEqual(['BAD_USER_INPUT']);
      expect(message(res)).toBe(`receiver ${theirReceiver.id} belongs to another account, not ${mine.accountId}`);
    }
    expect((await app.store.getReceiver(theirReceiver.id))?.active).toBe(true);

    dataOf(await app.gql('support', POLICY, { accountId: theirs.accountId, policy: 'REQUIRE' }));
    const last = await app.gql('support', ACTIVE, { accountId: theirs.accountId, receiverId: theirReceiver.id, active: false });
    expect(message(last)).toMatch(/cannot deactivate the last active receiver/);
    expect((await app.store.getReceiver(theirReceiver.id))?.active).toBe(true);
  });

  it('applies a policy change to the next verification of this process at once', async () => {
    const { accountId, apiKey } = await app.account(3);
    dataOf(await app.gql('support', ADD, { accountId, bankCode: '014', accountNumber: '1233131090', name: 'ดีดี' }));
    const verify = async () => {
      const res = await fetch(`${app.publicUrl}/api/v1/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify({ qrcode: sandboxQr({ details: { receiverAccount: '1111111111' } }) }),
      });
      return (await res.json()) as Record<string, unknown>;
    };
    expect((await verify()).checks).toBeUndefined();
    dataOf(await app.gql('support', POLICY, { accountId, policy: 'REQUIRE' }));
    expect(await verify()).toEqual({ status: 'error', code: 1025, message: 'receiver not registered' });
    dataOf(await app.gql('support', POLICY, { accountId, policy: 'REPORT' }));
    expect((await verify()).checks).toEqual({ receiver: { passed: false, policy: 'report', receiverId: null, label: null, matchedBy: [] } });
  });
});
