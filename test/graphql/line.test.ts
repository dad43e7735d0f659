// LINE channels over the GraphQL admin API of a real server: support
// connects (secrets masked in every answer, sealed at rest), viewers read,
// refusals change nothing, a server without SECRETS_KEY refuses to connect,
// disconnecting leaves the webhook answering 404.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, errorCodes, startGraphqlApp, type GraphqlTestApp } from './helpers.js';

const CONNECT = `mutation($accountId: ID!, $channelId: String!, $channelSecret: String!, $accessToken: String!, $lang: LineLanguage) {
  connectLineChannel(accountId: $accountId, channelId: $channelId, channelSecret: $channelSecret, accessToken: $accessToken, lang: $lang, reason: "go live") {
    channelId accountId lang checks matchPaymentRequests hints credentials
  }
}`;
const HINTS = `mutation($channelId: String!, $hints: Boolean!) { setLineChannelHints(channelId: $channelId, hints: $hints, reason: "shop asked") { channelId hints credentials } }`;
const READ = `query($id: ID!) { account(id: $id) { lineChannels { channelId lang credentials } } }`;
const DISCONNECT = `mutation($channelId: String!) { disconnectLineChannel(channelId: $channelId) { channelId } }`;

const secret = randomBytes(16).toString('hex');
const token = randomBytes(40).toString('base64url');

describe('GraphQL admin API: LINE channels', () => {
  let app: GraphqlTestApp;
  let keyless: GraphqlTestApp;
  beforeAll(async () => {
    app = await startGraphqlApp({ env: { SECRETS_KEY: randomBytes(32).toString('hex') } });
    keyless = await startGraphqlApp();
  });
  afterAll(async () => {
    await app?.stop();
    await keyless?.stop();
  });

  it('support connects a channel; no answer, event or stored column shows the secret or token', async () => {
    const { accountId } = await app.account(1);
    const vars = { accountId, channelId: '1650000001', channelSecret: secret, accessToken: token, lang: 'EN' };
    expect(errorCodes(await app.gql('viewer', CONNECT, vars))).toEqual(['FORBIDDEN']);
    expect(errorCodes(await app.gql('support', CONNECT, { ...vars, channelSecret: 'short' }))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await app.gql('support', CONNECT, { ...vars, channelId: '16500x' }))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await app.gql('support', CONNECT, { ...vars, accountId: 'acc_missing' }))).toEqual(['NOT_FOUND']);
    expect(await app.store.listLineChannels(accountId)).toEqual([]);

    const connected = await app.gql('support', CONNECT, vars);
    expect(dataOf(connected).connectLineChannel).toEqual({
      channelId: '1650000001',
      accountId,
      lang: 'EN',
      checks: true,
      matchPaymentRequests: false,
      hints: false,
      credentials: '•••••••• / ••••••••',
    });
    // Quiet by default; support turns the hint on, a viewer cannot, an unknown channel is not found.
    expect(errorCodes(await app.gql('viewer', HINTS, { channelId: '1650000001', hints: true }))).toEqual(['FORBIDDEN']);
    expect(errorCodes(await app.gql('support', HINTS, { channelId: '1650000009', hints: true }))).toEqual(['NOT_FOUND']);
    expect(dataOf(await app.gql('support', HINTS, { channelId: '1650000001', hints: true })).setLineChannelHints).toEqual({ channelId: '1650000001', hints: true, credentials: '•••••••• / ••••••••' });
    expect((await app.store.getLineChannel('1650000001'))!.hints).toBe(true);

    // Staff targets: support adds and removes, a viewer reads them (and the groups) on the channel.
    const target = 'C' + 'd'.repeat(32);
    const ADD = `mutation($t: String!) { addLineStaffTarget(channelId: "1650000001", targetId: $t, reason: "staff") { targetId } }`;
    const REMOVE = `mutation($t: String!) { removeLineStaffTarget(channelId: "1650000001", targetId: $t) { channelId } }`;
    const TARGETS = `query($id: ID!) { account(id: $id) { lineChannels { staffTargets { targetId } groups { groupId kind leftAt } } } }`;
    expect(errorCodes(await app.gql('viewer', ADD, { t: target }))).toEqual(['FORBIDDEN']);
    expect(errorCodes(await app.gql('support', ADD, { t: 'Cnot-an-id' }))).toEqual(['BAD_USER_INPUT']);
    expect(dataOf(await app.gql('support', ADD, { t: target })).addLineStaffTarget).toEqual({ targetId: target });
    await app.store.recordLineGroup({ channelId: '1650000001', groupId: target, kind: 'group', at: new Date(), present: true });
    expect(dataOf(await app.gql('viewer', TARGETS, { id: accountId })).account.lineChannels).toEqual([{ staffTargets: [{ targetId: target }], groups: [{ groupId: target, kind: 'group', leftAt: null }] }]);
    expect(dataOf(await app.gql('support', REMOVE, { t: target })).removeLineStaffTarget).toEqual({ channelId: '1650000001' });
    expect(errorCodes(await app.gql('support', REMOVE, { t: target }))).toEqual(['NOT_FOUND']);
    expect(errorCodes(await app.gql('support', CONNECT, vars))).toEqual(['BAD_USER_INPUT']);
    const read = await app.gql('viewer', READ, { id: accountId });
    expect(dataOf(read).account.lineChannels).toEqual([{ channelId: '1650000001', lang: 'EN', credentials: '•••••••• / ••••••••' }]);
    const stored = await app.store.getLineChannel('1650000001');
    for (const text of [connected.text, read.text, stored!.sealedSecret, stored!.sealedToken, JSON.stringify(await app.store.listAdminEvents({ limit: 10 }))]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(token);
    }
    expect(stored!.sealedSecret).toMatch(/^aesgcm1:/);
    const events = await app.store.listAdminEvents({ targetId: '1650000001', limit: 5 });
    expect(events.items.map((e) => [e.action, e.reason])).toEqual(expect.arrayContaining([['connectLineChannel', 'go live'], ['setLineChannelHints', 'shop asked']]));
    expect(events.items).toContainEqual(expect.objectContaining({ action: 'connectLineChannel', actor: expect.stringMatching(/^admin:.*support-token/), reason: 'go live' }));

    expect(dataOf(await app.gql('support', DISCONNECT, { channelId: '1650000001' })).disconnectLineChannel).toEqual({ channelId: '1650000001' });
    expect(errorCodes(await app.gql('support', DISCONNECT, { channelId: '1650000001' }))).toEqual(['NOT_FOUND']);
    const res = await fetch(`${app.publicUrl}/line/webhook/1650000001`, { method: 'POST', headers: { 'x-line-signature': 'A'.repeat(43) + '=' }, body: '{}' });
    // A channel that is gone gets the one refusal any unknown channel or bad signature gets.
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ status: 'error', message: 'invalid signature' });
  });

  it('refuses to connect a channel when SECRETS_KEY is not set, storing nothing', async () => {
    const { accountId } = await keyless.account(1);
    const refused = await keyless.gql('support', CONNECT, { accountId, channelId: '1650000002', channelSecret: secret, accessToken: token });
    expect(errorCodes(refused)).toEqual(['BAD_USER_INPUT']);
    expect(refused.text).toContain('SECRETS_KEY');
    expect(await keyless.store.getLineChannel('1650000002')).toBeNull();
  });
});
