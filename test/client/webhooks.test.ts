// slipgate/client/webhooks against an independent computation of Stripe's
// scheme (openssl's HMAC, not node:crypto), and against what the server's
// worker really sends.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../src/client/webhooks.js';
import { signatureHeader } from '../../src/domain/webhooks/signature.js';

const secret = 'whsec_test_9f8e7d6c5b4a';
const body = '{"id":"evt_1","type":"verification.succeeded","createdAt":"2026-01-01T07:00:00.000+07:00","data":{"amount":250.5,"th":"สลิป"}}';
const t = 1_767_225_600;
const at = new Date(t * 1000);

/** HMAC-SHA256 by openssl, a computation that shares no code with slipgate. */
function opensslHmac(key: string, text: string): string {
  const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', key, '-r'], { input: Buffer.from(text, 'utf8') }).toString();
  return out.split(' ')[0]!.trim();
}

describe('verifyWebhookSignature', () => {
  const header = `t=${t},v1=${opensslHmac(secret, `${t}.${body}`)}`;

  it('accepts the header computed independently, and the server signs the same way', () => {
    expect(verifyWebhookSignature(body, header, secret, { now: at })).toEqual({ ok: true, timestamp: t });
    expect(verifyWebhookSignature(Buffer.from(body), header, secret, { now: at }).ok).toBe(true);
    expect(signatureHeader(secret, body, at)).toBe(header);
  });

  it('refuses another body, another secret, or a signature not made by it', () => {
    expect(verifyWebhookSignature(body.replace('250.5', '2500.5'), header, secret, { now: at })).toEqual({ ok: false, reason: 'no_matching_signature' });
    expect(verifyWebhookSignature(body, header, 'whsec_other', { now: at })).toEqual({ ok: false, reason: 'no_matching_signature' });
    const reSerialised = JSON.stringify(JSON.parse(body), null, 1);
    expect(verifyWebhookSignature(reSerialised, header, secret, { now: at }).ok).toBe(false);
    // A different timestamp with the old signature: the timestamp is signed too.
    expect(verifyWebhookSignature(body, header.replace(`t=${t}`, `t=${t + 1}`), secret, { now: at })).toEqual({ ok: false, reason: 'no_matching_signature' });
  });

  it('refuses replays outside the tolerance (default 300 s), either way', () => {
    expect(verifyWebhookSignature(body, header, secret, { now: new Date((t + 300) * 1000) }).ok).toBe(true);
    expect(verifyWebhookSignature(body, header, secret, { now: new Date((t + 301) * 1000) })).toEqual({ ok: false, reason: 'timestamp_outside_tolerance' });
    expect(verifyWebhookSignature(body, header, secret, { now: new Date((t - 301) * 1000) }).ok).toBe(false);
    expect(verifyWebhookSignature(body, header, secret, { now: new Date((t + 3000) * 1000), toleranceSeconds: 3600 }).ok).toBe(true);
  });

  it('accepts one matching v1 among several, and refuses malformed headers', () => {
    expect(verifyWebhookSignature(body, `t=${t},v1=${'0'.repeat(64)},${header.split(',')[1]}`, secret, { now: at }).ok).toBe(true);
    for (const bad of [undefined, null, '', 'v1=abc', `t=${t}`, `t=soon,v1=${'a'.repeat(64)}`, `t=${t},v1=xyz`, `t=${t},v0=${'a'.repeat(64)}`]) {
      expect(verifyWebhookSignature(body, bad, secret, { now: at })).toEqual({ ok: false, reason: 'malformed_header' });
    }
  });
});
