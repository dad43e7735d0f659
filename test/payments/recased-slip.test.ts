// A transfer is one slip whatever the case of its reference's letters
// (issue 61, item 1). Banks look references up without regard to case, and
// the answer rule accepts an answer that differs from the QR only in case;
// re-casing the QR's letters (and recomputing its CRC) used to make a "new"
// slip: one ฿250 transfer paid two ฿250 orders and the duplicate check said
// not seen. Through the real server, on every engine.
import { afterAll, describe, expect, it } from 'vitest';
import type { BankAdapter } from '../../src/domain/ports/upstream.js';
import { parseSlipQr, writtenReference } from '../../src/domain/verify/slip-qr.js';
import { slipQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { counting, startApp, type TestApp } from '../helpers/app.js';
import { testEngines } from '../helpers/engines.js';
import { create, shop, slipFor } from './helpers.js';

/** A bank that finds a reference in any case and answers the transfer as it printed it (the spelling it was first asked with). */
function caseBlindBank(): BankAdapter {
  const sandbox = new SandboxUpstream();
  const printed = new Map<string, string>();
  return {
    name: 'sandbox',
    verify(query, signal) {
      const key = query.transRef.toUpperCase();
      if (!printed.has(key)) printed.set(key, query.transRef);
      return sandbox.verify({ ...query, transRef: printed.get(key)! }, signal);
    },
  };
}

/** The same slip QR with every letter of its reference in the other case, its CRC recomputed. */
function recased(qrcode: string): string {
  const parsed = parseSlipQr(qrcode);
  if (!parsed.ok) throw new Error('the sandbox QR must parse');
  const written = writtenReference(qrcode, parsed.slip);
  const swapped = written.replace(/[a-z]/gi, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()));
  expect(swapped).not.toBe(written);
  return slipQr(parsed.slip.sendingBank, swapped);
}

describe.each(testEngines())('a re-cased slip QR is the same slip on %s', (engine) => {
  let app: TestApp | undefined;
  afterAll(async () => {
    await app?.stop();
    await engine.dispose();
  });

  it('pays one of two ฿250 requests, the second is refused as paid by that slip; the duplicate check has seen it', { timeout: 60_000 }, async () => {
    const bank = counting(caseBlindBank());
    app = await startApp({ databaseUrl: await engine.databaseUrl(), upstream: bank });
    const merchant = await shop(app, 10);
    const first = (await create(app, merchant, { amount: 250, reference: 'order-a' })).body.data as { id: string };
    const second = (await create(app, merchant, { amount: 250, reference: 'order-b' })).body.data as { id: string };
    const pay = (qrcode: string, paymentRequest?: string, checks?: unknown) =>
      app!.post({ qrcode, ...(paymentRequest ? { paymentRequest } : {}), ...(checks ? { checks } : {}) }, { 'x-api-key': merchant.apiKey });

    const qrcode = slipFor({ amount: 250 });
    const again = recased(qrcode);
    expect(again).not.toBe(qrcode);
    expect(parseSlipQr(again).ok).toBe(true);

    const paid = await pay(qrcode, first.id);
    expect(paid.body.paymentRequest).toEqual({ id: first.id, status: 'paid' });
    const refused = await pay(again, second.id);
    expect(refused.body.status).toBe('success');
    expect(refused.body.data.transactionId).toBe(paid.body.data.transactionId);
    expect(refused.body.paymentRequest).toEqual({ id: second.id, status: 'pending', reason: 'slip_already_used', otherRequestId: first.id });
    expect((await app.store.getPaymentRequest(second.id))!.status).toBe('pending');

    const checked = await pay(again, undefined, { duplicate: true });
    expect(checked.body.checks.duplicate).toMatchObject({ seen: true, count: 2 });
    // Each was asked of the bank (the plain route keeps no idempotency), in the QR's own spelling.
    expect(bank.calls).toBe(3);
  });
});
