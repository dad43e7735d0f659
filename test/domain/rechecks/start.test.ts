// The bounds of open re-checks below the account's (src/domain/rechecks/start.ts):
// one LINE customer, one payment request (its checkout page's visitor), each
// a few, so that a stranger sending slip-shaped text the bank calls unknown
// cannot fill the account's 100 and have a real customer's late slip refused.
// A network that names its delay is not asked sooner. Real stores, every engine.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../../src/domain/accounts/operations.js';
import type { PaymentRequest } from '../../../src/domain/payments/types.js';
import type { Store } from '../../../src/domain/ports/store.js';
import { RECHECK_MAX_PER_LINE_USER, RECHECK_MAX_PER_PAYMENT_REQUEST, recheckInstead } from '../../../src/domain/rechecks/start.js';
import type { Late } from '../../../src/domain/verify/types.js';
import { openStore } from '../../../src/store/open.js';
import { testEngines } from '../../helpers/engines.js';

const SETTINGS = { windowMs: 600_000, maxPerAccount: 100 };

describe.each(testEngines())('open re-checks per LINE customer and per payment request on %s', (engine) => {
  const stores: Store[] = [];
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await engine.dispose();
  });

  async function opened(): Promise<{ store: Store; accountId: string }> {
    const store = await openStore(await engine.databaseUrl());
    stores.push(store);
    const { account } = await new AccountService(store).createAccount({ name: 'Shop', credits: 10, actor: 'test' });
    return { store, accountId: account.id };
  }

  /** One slip the bank called unknown, each with a reference of its own. */
  function slipUnknown(store: Store, accountId: string, late: Late, paying?: PaymentRequest, at = new Date(), retryAfterMs?: number) {
    const id = `vfy_${randomUUID().replaceAll('-', '')}`;
    const transRef = `0130${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    return recheckInstead(
      store,
      SETTINGS,
      late,
      'slip_not_found',
      { who: { id, requestId: id, accountId, keyId: 'key_test' }, qrcode: `qr-${transRef}`, slip: { sendingBank: '004', transRef }, paying, checks: undefined, at, retryAfterMs },
      10,
    );
  }

  it(`keeps at most ${RECHECK_MAX_PER_LINE_USER} open for one LINE customer, while another customer of the channel is still kept`, async () => {
    const { store, accountId } = await opened();
    const stranger = { optIn: false, line: { channelId: 'line_1', userId: 'Ustranger' } };
    for (let i = 0; i < RECHECK_MAX_PER_LINE_USER; i++) expect(await slipUnknown(store, accountId, stranger)).toMatchObject({ kind: 'pending' });
    expect(await slipUnknown(store, accountId, stranger)).toMatchObject({ kind: 'recheck_limit' });
    // The same user id on another channel is another customer; so is another user of this channel.
    expect(await slipUnknown(store, accountId, { optIn: false, line: { channelId: 'line_2', userId: 'Ustranger' } })).toMatchObject({ kind: 'pending' });
    expect(await slipUnknown(store, accountId, { optIn: false, line: { channelId: 'line_1', userId: 'Ucustomer' } })).toMatchObject({ kind: 'pending' });
    expect(await store.openRechecks({ accountId, limit: 100 })).toHaveLength(RECHECK_MAX_PER_LINE_USER + 2);
  });

  it(`keeps at most ${RECHECK_MAX_PER_PAYMENT_REQUEST} open for one payment request, while another request is still kept`, async () => {
    const { store, accountId } = await opened();
    // What the re-check reads of the request it pays: its id and that it is still payable.
    const request = (id: string) => ({ id, accountId, status: 'pending' }) as PaymentRequest;
    const page = { optIn: false };
    for (let i = 0; i < RECHECK_MAX_PER_PAYMENT_REQUEST; i++) expect(await slipUnknown(store, accountId, page, request('pr_one'))).toMatchObject({ kind: 'pending' });
    expect(await slipUnknown(store, accountId, page, request('pr_one'))).toMatchObject({ kind: 'recheck_limit' });
    expect(await slipUnknown(store, accountId, page, request('pr_two'))).toMatchObject({ kind: 'pending', paymentRequest: { id: 'pr_two', status: 'verifying' } });
  });

  it('asks again no sooner than the delay a network named, and stretches the deadline to hold that attempt', async () => {
    const { store, accountId } = await opened();
    const at = new Date('2026-12-01T10:00:00.000Z');
    const page = { optIn: false };
    const request = (id: string) => ({ id, accountId, status: 'pending' }) as PaymentRequest;
    // SlipOK 1009: "check again in 15 minutes"; a plain not-found keeps the usual first delay (15 s).
    expect(await slipUnknown(store, accountId, page, request('pr_late'), at, 15 * 60_000)).toMatchObject({ kind: 'pending' });
    expect(await slipUnknown(store, accountId, page, request('pr_plain'), at)).toMatchObject({ kind: 'pending' });
    const open = await store.openRechecks({ accountId, limit: 10 });
    const of = (id: string) => open.find((r) => r.paymentRequestId === id)!;
    expect(of('pr_late').nextAttemptAt.toISOString()).toBe('2026-12-01T10:15:00.000Z');
    expect(of('pr_late').deadline.toISOString()).toBe('2026-12-01T10:15:00.000Z');
    expect(of('pr_plain').nextAttemptAt.toISOString()).toBe('2026-12-01T10:00:15.000Z');
    expect(of('pr_plain').deadline.toISOString()).toBe('2026-12-01T10:10:00.000Z');
  });
});
