// How thrown request errors become results, without a network: DNS and
// reset errors cannot be produced deterministically over loopback.
import { Options, RequestError } from 'got';
import { describe, expect, it } from 'vitest';
import { requestFailure } from '../../src/upstream/shared/bank-http.js';
import { isConnectionFailure, plainWords } from '../../src/upstream/shared/outcomes.js';

const requestError = (code: string) => new RequestError(`failed: ${code}`, { code }, new Options('http://bank.test/'));
const live = new AbortController().signal;

describe('requestFailure', () => {
  it.each(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN'])('treats %s before any response as unavailable, safe to fail over', (code) => {
    const result = requestFailure(requestError(code), live, 'kbank-1');
    expect(result).toEqual({ ok: false, kind: 'upstream_unavailable', message: 'verification service unavailable', upstream: 'kbank-1', connectionFailed: true });
    expect(isConnectionFailure(result)).toBe(true);
  });

  it('treats any error after the deadline as a timeout', () => {
    const result = requestFailure(requestError('ECONNRESET'), AbortSignal.abort(), 'kbank-1');
    expect(result).toEqual({ ok: false, kind: 'upstream_timeout', message: 'verification service timed out', upstream: 'kbank-1' });
  });

  it('treats other failures as upstream errors that are not retried elsewhere', () => {
    const result = requestFailure(requestError('DEPTH_ZERO_SELF_SIGNED_CERT'), live, 'scb-1');
    expect(result).toEqual({ ok: false, kind: 'upstream_error', message: 'verification service error: request failed (DEPTH_ZERO_SELF_SIGNED_CERT)', upstream: 'scb-1' });
    expect(isConnectionFailure(result)).toBe(false);
  });
});

describe('plainWords', () => {
  it.each([
    ['Transaction not found or too old.', 'transaction not found or too old'],
    ['TRANSACTION NOT FOUND', 'transaction not found'],
    ['QR code\u0000 expired\n', 'QR code expired'],
    ['', ''],
    [42, ''],
  ])('%j → %j', (input, expected) => {
    expect(plainWords(input)).toBe(expected);
  });

  it('caps what a bank can put into our messages', () => {
    expect(plainWords('x'.repeat(1000))).toHaveLength(200);
  });
});
