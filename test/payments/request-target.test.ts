// A payment request keeps the target it was made for (its receiver's
// PromptPay id, bank and names as they were), on a real SQLite store: LINE
// matching finds an order after its receiver was removed and added again to
// fix a name, and after it was removed outright, and the receiver the slip
// went to decides, not which receivers are registered now.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PendingRequestMatcher } from '../../src/domain/line/payment-match.js';
import { PaymentRequestService } from '../../src/domain/payments/service.js';
import { ReceiverService } from '../../src/domain/receivers/operations.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { verifiedSlip } from '../domain/slip-fixtures.js';
import { tempDir } from '../helpers/temp.js';

/** 100.38 baht to the PromptPay mobile 081-234-5678, masked as banks print it. */
const slip = verifiedSlip({ receiverPromptpay: 'xxx-xxx-5678', receiverProxyType: 'MSISDN', receiverName: 'บจก. ดีดี', receiverNameEN: 'DEEDEE CO', receiverBankCode: '' });

describe('payment requests keep their target', () => {
  const dir = tempDir();
  let store: SqliteStore;
  let receivers: ReceiverService;
  let payments: PaymentRequestService;
  let accountId: string;
  beforeAll(async () => {
    store = new SqliteStore(join(dir.path, 'targets.db'));
    await store.migrate();
    receivers = new ReceiverService(store);
    payments = new PaymentRequestService(store);
  });
  afterAll(async () => {
    await store?.close();
    dir.remove();
  });

  const account = async (name: string) => (await store.createAccount({ id: `acc_${name}`, name, createdAt: new Date() })).id;
  const order = async (reference: string) => (await payments.create(accountId, { amount: 10_038, reference, expiresInMinutes: 30 })).request;

  it('keeps the receiver it was made for on the request', async () => {
    accountId = await account('kept');
    const receiver = await receivers.add({ accountId, promptPay: '0812345678', nameTh: 'บจก. ดีดี', nameEn: 'DEEDEE CO', label: 'till 1' });
    const request = await order('order-1');
    expect((await store.getPaymentRequest(request.id))?.target).toEqual({ kind: 'promptpay', bankCode: null, number: '0812345678', proxyType: 'MSISDN', nameTh: 'บจก. ดีดี', nameEn: 'DEEDEE CO' });
    expect(await new PendingRequestMatcher(store).match(accountId, slip)).toEqual({ kind: 'one', request });
    await store.cancelPaymentRequest(request.id, new Date());
    await receivers.remove(receiver.id);
  });

  it('LINE matching finds the order after its receiver was removed and added again (a name fixed), and by its own target after it was removed', async () => {
    accountId = await account('edited');
    const first = await receivers.add({ accountId, promptPay: '0812345678', nameTh: 'บจก. ดีด', nameEn: 'DEEDEE CO' });
    const request = await order('order-2');
    await receivers.remove(first.id);
    const fixed = await receivers.add({ accountId, promptPay: '0812345678', nameTh: 'บจก. ดีดี', nameEn: 'DEEDEE CO' });
    expect(fixed.id).not.toBe(first.id);
    const matcher = new PendingRequestMatcher(store);
    expect(await matcher.match(accountId, slip)).toEqual({ kind: 'one', request });
    await receivers.remove(fixed.id);
    // With no registration of its number left, the request's own target decides: its name as it was then.
    expect(await matcher.match(accountId, slip)).toEqual({ kind: 'none' });
    expect(await matcher.match(accountId, { ...slip, receiverName: 'บจก. ดีด' })).toEqual({ kind: 'one', request });
    // A slip to another PromptPay id is still no one's.
    expect(await matcher.match(accountId, { ...slip, receiverPromptpay: 'xxx-xxx-9999' })).toEqual({ kind: 'none' });
  });
});
