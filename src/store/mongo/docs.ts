// Mapping between the MongoDB store's documents (doc-types.ts) and domain types.
import type {
  Account,
  AdminEvent,
  AdminRole,
  AdminToken,
  ApiKey,
  CreditHold,
  ErrorKind,
  LedgerEntry,
  LedgerKind,
  PromptPayType,
  Receiver,
  ReceiverPolicy,
  RequestErrorRecord,
  VerifyTransactionRecord,
} from '../../domain/types.js';
import type { HoldEntry, AccountDoc, ApiKeyDoc, VerifyTransactionDoc, RequestErrorDoc, LedgerDoc, AdminTokenDoc, AdminEventDoc, ReceiverDoc, LineChannelDoc } from './doc-types.js';
import type { LineChannel } from '../../domain/line/types.js';

export type { HoldEntry, AccountDoc, ApiKeyDoc, VerifyTransactionDoc, RequestErrorDoc, LedgerDoc, InstanceLeaseDoc, HoldOutcomeDoc, AdminTokenDoc, AdminEventDoc, ReceiverDoc, WebhookEndpointDoc, WebhookDeliveryDoc, LineChannelDoc, LineEventDoc } from './doc-types.js';

/** Read projection: the ledger id lists are bookkeeping, not account data. */
export const ACCOUNT_PROJECTION = { appliedLedger: 0, refusedLedger: 0 } as const;

export const account = (d: Omit<AccountDoc, 'appliedLedger' | 'refusedLedger'>): Account => ({
  id: d._id,
  name: d.name,
  credits: Number(d.credits),
  held: d.holds?.length ?? 0,
  usage: Number(d.usage),
  createdAt: d.createdAt,
  deletedAt: d.deletedAt ?? null,
  receiverPolicy: (d.receiverPolicy ?? 'off') as ReceiverPolicy,
});

export const receiver = (d: ReceiverDoc): Receiver => ({
  id: d._id,
  accountId: d.accountId,
  kind: d.kind as Receiver['kind'],
  bankCode: d.bankCode ?? null,
  number: d.number,
  proxyType: (d.proxyType ?? null) as PromptPayType | null,
  nameTh: d.nameTh ?? null,
  nameEn: d.nameEn ?? null,
  label: d.label ?? null,
  active: d.active,
  createdAt: d.createdAt,
});

export const apiKey = (d: ApiKeyDoc): ApiKey => ({
  id: d._id,
  accountId: d.accountId,
  prefix: d.prefix,
  hash: d.hash,
  createdAt: d.createdAt,
  lastUsedAt: d.lastUsedAt ?? null,
  revokedAt: d.revokedAt ?? null,
  allowedIps: d.allowedIps ?? [],
});

export const hold = (accountId: string, h: HoldEntry): CreditHold => ({ id: h._id, accountId, keyId: h.keyId, createdAt: h.createdAt, instanceId: h.instanceId ?? null });

export const verifyTransaction = (d: VerifyTransactionDoc): VerifyTransactionRecord => ({
  id: d._id,
  accountId: d.accountId,
  keyId: d.keyId,
  requestId: d.requestId,
  qrcode: d.qrcode,
  transactionId: d.transactionId,
  amount: d.amount,
  sendingBank: d.sendingBank,
  receivingBank: d.receivingBank,
  upstream: d.upstream,
  latencyMs: d.latencyMs,
  response: d.response,
  createdAt: d.createdAt,
  ...(d.source === 'image' || d.source === 'qrcode' || d.source === 'line' ? { source: d.source } : {}),
  ...(d.lineUserId ? { lineUserId: d.lineUserId } : {}),
  ...(d.redactedAt ? { redactedAt: d.redactedAt } : {}),
  ...(d.payment ? { payment: { requestId: d.payment.requestId, status: d.payment.status, reason: d.payment.reason ?? null } } : {}),
});

export const verifyTransactionDoc = (r: VerifyTransactionRecord): VerifyTransactionDoc => ({
  _id: r.id,
  accountId: r.accountId,
  keyId: r.keyId,
  requestId: r.requestId,
  qrcode: r.qrcode,
  transactionId: r.transactionId,
  amount: r.amount,
  sendingBank: r.sendingBank,
  receivingBank: r.receivingBank,
  upstream: r.upstream,
  latencyMs: r.latencyMs,
  response: r.response,
  createdAt: r.createdAt,
  ...(r.source ? { source: r.source } : {}),
  ...(r.lineUserId ? { lineUserId: r.lineUserId } : {}),
  ...(r.payment ? { payment: r.payment } : {}),
});

export const requestError = (d: RequestErrorDoc): RequestErrorRecord => ({
  id: d._id,
  accountId: d.accountId ?? null,
  keyId: d.keyId ?? null,
  requestId: d.requestId,
  qrcode: d.qrcode ?? null,
  transactionId: d.transactionId ?? null,
  sendingBank: d.sendingBank ?? null,
  kind: d.kind as ErrorKind,
  message: d.message,
  upstream: d.upstream ?? null,
  latencyMs: d.latencyMs ?? null,
  createdAt: d.createdAt,
  ...(d.lineUserId ? { lineUserId: d.lineUserId } : {}),
});

export const requestErrorDoc = (r: RequestErrorRecord): RequestErrorDoc => ({
  _id: r.id,
  accountId: r.accountId,
  keyId: r.keyId,
  requestId: r.requestId,
  qrcode: r.qrcode,
  transactionId: r.transactionId,
  sendingBank: r.sendingBank,
  kind: r.kind,
  message: r.message,
  upstream: r.upstream,
  latencyMs: r.latencyMs,
  createdAt: r.createdAt,
  ...(r.lineUserId ? { lineUserId: r.lineUserId } : {}),
});

export const ledger = (d: LedgerDoc): LedgerEntry => ({
  id: d._id,
  accountId: d.accountId,
  kind: d.kind as LedgerKind,
  delta: Number(d.delta),
  reason: d.reason,
  actor: d.actor,
  idempotencyKey: d.idempotencyKey ?? null,
  createdAt: d.createdAt,
});

export const ledgerClaim = (e: LedgerEntry): string => (e.idempotencyKey !== null ? `key:${e.idempotencyKey}` : `id:${e.id}`);

export const ledgerDoc = (e: LedgerEntry): LedgerDoc => ({
  _id: e.id,
  accountId: e.accountId,
  kind: e.kind,
  delta: e.delta,
  reason: e.reason,
  actor: e.actor,
  idempotencyKey: e.idempotencyKey,
  claim: ledgerClaim(e),
  state: 'pending',
  appliedAt: null,
  pruned: false,
  createdAt: e.createdAt,
});

export const adminToken = (d: AdminTokenDoc): AdminToken => ({
  id: d._id,
  name: d.name,
  role: d.role as AdminRole,
  prefix: d.prefix,
  hash: d.hash,
  createdAt: d.createdAt,
  lastUsedAt: d.lastUsedAt ?? null,
  revokedAt: d.revokedAt ?? null,
});

export const adminEvent = (d: AdminEventDoc): AdminEvent => ({
  id: d._id,
  actor: d.actor,
  action: d.action,
  targetId: d.targetId ?? null,
  reason: d.reason ?? null,
  details: d.details ?? {},
  createdAt: d.createdAt,
});

export const lineChannel = (d: LineChannelDoc): LineChannel => ({
  channelId: d._id,
  accountId: d.accountId,
  sealedSecret: d.secret,
  sealedToken: d.accessToken,
  lang: d.lang === 'en' ? 'en' : 'th',
  checks: d.checks,
  matchPaymentRequests: d.matchPaymentRequests,
  hints: d.hints ?? false,
  createdAt: d.createdAt,
});
