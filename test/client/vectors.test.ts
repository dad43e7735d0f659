// The shared SDK test vectors (sdk/vectors/, read by the PHP, Python and Go
// SDKs' own tests too): the committed files are what the server's code makes
// now, and the TypeScript SDK gives each case's expected answer, the
// tampered ones refused. Error answers are replayed by a real local HTTP
// server to the SDK's real calls.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VECTOR_FILES, VECTORS_DIR } from '../../scripts/sdk-vectors.js';
import { createClient } from '../../src/client/index.js';
import { verifyCheckoutReturn, verifyWebhookSignature } from '../../src/client/webhooks.js';

const read = <T>(name: string): T => JSON.parse(readFileSync(new URL(name, VECTORS_DIR), 'utf8')) as T;

interface WebhookCase {
  name: string;
  secret: string;
  headers: { 'slipgate-signature': string };
  body: string;
  now: number;
  toleranceSeconds: number;
  expect: { ok: boolean };
}
interface CheckoutCase {
  name: string;
  secret: string;
  url: string;
  expect: { ok: boolean };
}
interface ErrorCase {
  name: string;
  route: string;
  httpStatus: number;
  headers: Record<string, string>;
  body: string;
  expect: { kind: string; code: number | null; message: string; creditsRemaining: number | null; retryAfterSeconds: number | null };
}

describe('sdk/vectors', () => {
  it.each(Object.keys(VECTOR_FILES))('%s is what scripts/sdk-vectors.ts makes now (npx tsx scripts/sdk-vectors.ts)', (name) => {
    expect(readFileSync(new URL(name, VECTORS_DIR), 'utf8')).toBe(`${JSON.stringify(VECTOR_FILES[name as keyof typeof VECTOR_FILES](), null, 2)}\n`);
  });

  const webhooks = read<{ cases: WebhookCase[] }>('webhooks.json').cases;
  it('has valid, tampered, wrong-secret, stale and rotation webhook cases', () => {
    expect(webhooks.map((c) => c.name)).toEqual(expect.arrayContaining(['valid', 'tampered body', 'wrong secret', 'stale timestamp', 'rotation, the old secret', 'rotation, the new secret']));
    expect(webhooks.find((c) => c.name === 'rotation, the new secret')!.headers['slipgate-signature'].match(/v1=/g)).toHaveLength(2);
  });

  it.each(webhooks.map((c) => [c.name, c] as const))('webhook: %s', (_name, c) => {
    const options = { now: new Date(c.now * 1000), toleranceSeconds: c.toleranceSeconds };
    expect(verifyWebhookSignature(c.body, c.headers['slipgate-signature'], c.secret, options)).toEqual(c.expect);
    // The same bytes as bytes: what a receiver that never decodes the body passes.
    expect(verifyWebhookSignature(Buffer.from(c.body, 'utf8'), c.headers['slipgate-signature'], c.secret, options)).toEqual(c.expect);
  });

  it.each(read<{ cases: CheckoutCase[] }>('checkout-return.json').cases.map((c) => [c.name, c] as const))('checkout return: %s', (_name, c) => {
    expect(verifyCheckoutReturn(c.url, c.secret)).toEqual(c.expect);
  });

  describe('error answers, replayed over HTTP', () => {
    let server: Server;
    let url: string;
    let answering: ErrorCase;
    beforeAll(async () => {
      server = createServer((req, res) => {
        req.resume().on('end', () => res.writeHead(answering.httpStatus, { 'content-type': 'application/json', ...answering.headers }).end(answering.body));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it.each(read<{ cases: ErrorCase[] }>('errors.json').cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      answering = c;
      // No retries: the answer itself is what is checked (429 and 503 would be sent again).
      const client = createClient({ url, apiKey: 'slip_vectors', retries: 0 });
      const got =
        c.route === 'POST /api/v1/verify'
          ? await client.verify('0046000600000101030040225SBX0000025000SZkZewArRPyU5102TH9104BBA5')
          : c.route === 'POST /api/v1/payment-requests'
            ? await client.createPaymentRequest({ amount: 120, reference: 'order-1' })
            : await client.getPaymentRequest('pr_01a2000000000000000000000000v004');
      const { code, creditsRemaining, kind, message } = c.expect;
      expect(got).toEqual({
        status: 'error',
        kind,
        httpStatus: c.httpStatus,
        message,
        ...(code === null ? {} : { code }),
        ...(creditsRemaining === null ? {} : { creditsRemaining }),
      });
    });
  });
});
