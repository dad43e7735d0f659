// The small pieces verify.ts builds its answers and failure records from:
// who asked, what a failure record says, and the outcomes that need no state.
import { ACCOUNT_ERRORS } from '../errors.js';
import type { SlipRef } from './slip-qr.js';
import type { ErrorKind, RequestErrorRecord, VerifiedSlip, VerifyTransactionRecord } from '../types.js';
import type { BodyRead, VerifyOutcome } from './types.js';
import { checkVerifyBody, type BodyCheck } from './request.js';
import { checkPictureBody } from './picture-body.js';

/** Who asked: the request, and once the key resolved, its account and key. */
export interface Who {
  id: string;
  requestId: string;
  accountId: string | null;
  keyId: string | null;
  /** Set for `image` bodies and LINE chats, recorded on the verification. */
  source?: 'image' | 'line';
  /** The LINE user who sent the slip (source 'line'), recorded on every record of it. */
  lineUserId?: string;
}
export type KeyedWho = Who & { accountId: string; keyId: string };

/** The success record of a verified slip: what the settle stores (and its webhook event tells). */
export function successRecord(who: KeyedWho, facts: { qrcode: string; data: VerifiedSlip; upstream: string; latencyMs: number }, at: Date): VerifyTransactionRecord {
  const { qrcode, data, upstream, latencyMs } = facts;
  return {
    id: who.id,
    accountId: who.accountId,
    keyId: who.keyId,
    requestId: who.requestId,
    qrcode,
    transactionId: data.transactionId,
    amount: data.amount,
    sendingBank: data.senderBankCode,
    receivingBank: data.receiverBankCode,
    upstream,
    latencyMs,
    response: data,
    createdAt: at,
    ...(who.source ? { source: who.source } : {}),
    ...(who.lineUserId ? { lineUserId: who.lineUserId } : {}),
  };
}

/** What a failure record says beyond who asked. */
export interface FailureFacts {
  kind: ErrorKind;
  message: string;
  qrcode?: string | null;
  /** The parsed QR, when it parsed: a failed slip is then found like a verified one. */
  slip?: SlipRef | null;
  upstream?: string | null;
  latencyMs?: number | null;
}

export function requestErrorRecord(who: Who, facts: FailureFacts, createdAt: Date): RequestErrorRecord {
  return {
    id: who.id,
    accountId: who.accountId,
    keyId: who.keyId,
    requestId: who.requestId,
    qrcode: facts.qrcode ?? null,
    transactionId: facts.slip?.transRef ?? null,
    sendingBank: facts.slip?.sendingBank ?? null,
    kind: facts.kind,
    message: facts.message,
    upstream: facts.upstream ?? null,
    latencyMs: facts.latencyMs ?? null,
    createdAt,
    ...(who.lineUserId ? { lineUserId: who.lineUserId } : {}),
  };
}

export function failure(reason: ErrorKind, message: string, creditsRemaining: number): VerifyOutcome {
  return { kind: 'failed', reason, message, creditsRemaining };
}

export function imageRefusal(refused: 'bad_request' | 'busy' | 'unavailable', message: string, creditsRemaining: number): VerifyOutcome {
  if (refused === 'bad_request') return { kind: 'bad_request', problem: 'invalid', message, creditsRemaining };
  // A busy or missing decoder says nothing about the account: no balance, like every 429 and 503.
  return { kind: refused, message };
}

export function bodyCheck(read: Exclude<BodyRead, { busy: string }>, maxQrcodeBodyBytes: number | undefined): BodyCheck {
  if (!read.ok) return { ok: false, ...read.problem };
  return 'picture' in read ? checkPictureBody(read.picture) : checkVerifyBody(read.contentType, read.bytes, maxQrcodeBodyBytes);
}

/** What a 1024's record says: the address slipgate judged, and where it read it from. */
export function ipRefusalRecorded(seen: { clientIp: string | null; clientIpFrom: string | null }): string {
  return `${ACCOUNT_ERRORS.ip_not_allowed.message}: saw ${seen.clientIp ?? 'no address'}${seen.clientIpFrom ? ` (${seen.clientIpFrom})` : ''}`;
}
