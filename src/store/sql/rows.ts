// Row shapes shared by the SQL engines and their mapping to domain types.
// The schemas have the same tables and columns; what differs is how a driver
// hands back three kinds of value, so each engine supplies a Codec: times
// (SQLite: epoch ms; PostgreSQL: Date), amounts (SQLite: number; PostgreSQL:
// numeric as a string, since it may not fit a double) and JSON (SQLite:
// text; PostgreSQL: jsonb, already parsed).
import type { PaymentRefusal, PaymentStatus } from '../../domain/payments/types.js';
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
import type { LineChannel } from '../../domain/line/types.js';

export interface Codec<Time, Amount, Json> {
  date(value: Time): Date;
  amount(value: Amount): number;
  json<T>(value: Json): T;
}

export interface AccountRow<Time> {
  id: string;
  name: string;
  credits: number;
  usage: number;
  held: number;
  created_at: Time;
  deleted_at: Time | null;
  /** Added by a later migration with a default of 'off'. */
  receiver_policy: string;
}
export interface ReceiverRow<Time> {
  id: string;
  account_id: string;
  kind: string;
  bank_code: string | null;
  number: string;
  proxy_type: string | null;
  name_th: string | null;
  name_en: string | null;
  label: string | null;
  /** SQLite: 0/1; PostgreSQL: boolean. */
  active: boolean | number;
  created_at: Time;
}
export interface ApiKeyRow<Time> {
  id: string;
  account_id: string;
  prefix: string;
  hash: string;
  created_at: Time;
  last_used_at: Time | null;
  revoked_at: Time | null;
  /** JSON array of CIDR ranges as text on both engines; NULL = any address. */
  allowed_ips: string | null;
}
export interface HoldRow<Time> {
  id: string;
  account_id: string;
  key_id: string;
  created_at: Time;
  /** Null on holds taken before leases existed, or outside a live one. */
  instance_id: string | null;
}
export interface VtRow<Time, Amount, Json> {
  id: string;
  account_id: string;
  key_id: string;
  request_id: string;
  qrcode: string;
  transaction_id: string;
  amount: Amount;
  sending_bank: string;
  receiving_bank: string;
  upstream: string;
  latency_ms: number;
  response: Json;
  created_at: Time;
  source?: string | null;
  line_user_id?: string | null;
  redacted_at?: Time | null;
  payment_request_id?: string | null;
  payment_status?: string | null;
  payment_reason?: string | null;
}
export interface ErrorRow<Time> {
  id: string;
  account_id: string | null;
  key_id: string | null;
  request_id: string;
  qrcode: string | null;
  transaction_id: string | null;
  sending_bank: string | null;
  kind: string;
  message: string;
  upstream: string | null;
  latency_ms: number | null;
  created_at: Time;
  line_user_id?: string | null;
}
export interface LineChannelRow<Time> {
  channel_id: string;
  account_id: string;
  secret: string;
  access_token: string;
  lang: string;
  checks: boolean | number;
  match_payment_requests: boolean | number;
  hints: boolean | number;
  created_at: Time;
}
export interface LedgerRow<Time> {
  id: string;
  account_id: string;
  kind: string;
  delta: number;
  reason: string;
  actor: string;
  idempotency_key: string | null;
  created_at: Time;
}
export interface AdminTokenRow<Time> {
  id: string;
  name: string;
  role: string;
  prefix: string;
  hash: string;
  created_at: Time;
  last_used_at: Time | null;
  revoked_at: Time | null;
}
export interface AdminEventRow<Time, Json> {
  id: string;
  actor: string;
  action: string;
  target_id: string | null;
  reason: string | null;
  details: Json;
  created_at: Time;
}

/** The row → domain mappers of one engine. */
export function rowMappers<Time, Amount, Json>(c: Codec<Time, Amount, Json>) {
  const maybeDate = (value: Time | null) => (value === null ? null : c.date(value));
  return {
    account: (r: AccountRow<Time>): Account => ({
      id: r.id,
      name: r.name,
      credits: r.credits,
      held: r.held,
      usage: r.usage,
      createdAt: c.date(r.created_at),
      deletedAt: maybeDate(r.deleted_at),
      receiverPolicy: r.receiver_policy as ReceiverPolicy,
    }),
    receiver: (r: ReceiverRow<Time>): Receiver => ({
      id: r.id,
      accountId: r.account_id,
      kind: r.kind as Receiver['kind'],
      bankCode: r.bank_code,
      number: r.number,
      proxyType: r.proxy_type as PromptPayType | null,
      nameTh: r.name_th,
      nameEn: r.name_en,
      label: r.label,
      active: Boolean(r.active),
      createdAt: c.date(r.created_at),
    }),
    apiKey: (r: ApiKeyRow<Time>): ApiKey => ({
      id: r.id,
      accountId: r.account_id,
      prefix: r.prefix,
      hash: r.hash,
      createdAt: c.date(r.created_at),
      lastUsedAt: maybeDate(r.last_used_at),
      revokedAt: maybeDate(r.revoked_at),
      allowedIps: r.allowed_ips ? (JSON.parse(r.allowed_ips) as string[]) : [],
    }),
    hold: (r: HoldRow<Time>): CreditHold => ({ id: r.id, accountId: r.account_id, keyId: r.key_id, createdAt: c.date(r.created_at), instanceId: r.instance_id ?? null }),
    verifyTransaction: (r: VtRow<Time, Amount, Json>): VerifyTransactionRecord => ({
      id: r.id,
      accountId: r.account_id,
      keyId: r.key_id,
      requestId: r.request_id,
      qrcode: r.qrcode,
      transactionId: r.transaction_id,
      amount: c.amount(r.amount),
      sendingBank: r.sending_bank,
      receivingBank: r.receiving_bank,
      upstream: r.upstream,
      latencyMs: r.latency_ms,
      response: c.json<VerifyTransactionRecord['response']>(r.response),
      createdAt: c.date(r.created_at),
      ...sourceOf(r.source),
      ...lineUserOf(r.line_user_id),
      // Only on redacted records, like `source`: a whole record reads as it was written.
      ...(r.redacted_at == null ? {} : { redactedAt: c.date(r.redacted_at) }),
      ...paymentOf(r),
    }),
    requestError: (r: ErrorRow<Time>): RequestErrorRecord => ({
      id: r.id,
      accountId: r.account_id,
      keyId: r.key_id,
      requestId: r.request_id,
      qrcode: r.qrcode,
      transactionId: r.transaction_id,
      sendingBank: r.sending_bank,
      kind: r.kind as ErrorKind,
      message: r.message,
      upstream: r.upstream,
      latencyMs: r.latency_ms,
      createdAt: c.date(r.created_at),
      ...lineUserOf(r.line_user_id),
    }),
    lineChannel: (r: LineChannelRow<Time>): LineChannel => ({
      channelId: r.channel_id,
      accountId: r.account_id,
      sealedSecret: r.secret,
      sealedToken: r.access_token,
      lang: r.lang === 'en' ? 'en' : 'th',
      checks: Boolean(r.checks),
      matchPaymentRequests: Boolean(r.match_payment_requests),
      hints: Boolean(r.hints),
      createdAt: c.date(r.created_at),
    }),
    ledger: (r: LedgerRow<Time>): LedgerEntry => ({
      id: r.id,
      accountId: r.account_id,
      kind: r.kind as LedgerKind,
      delta: r.delta,
      reason: r.reason,
      actor: r.actor,
      idempotencyKey: r.idempotency_key,
      createdAt: c.date(r.created_at),
    }),
    adminToken: (r: AdminTokenRow<Time>): AdminToken => ({
      id: r.id,
      name: r.name,
      role: r.role as AdminRole,
      prefix: r.prefix,
      hash: r.hash,
      createdAt: c.date(r.created_at),
      lastUsedAt: maybeDate(r.last_used_at),
      revokedAt: maybeDate(r.revoked_at),
    }),
    adminEvent: (r: AdminEventRow<Time, Json>): AdminEvent => ({
      id: r.id,
      actor: r.actor,
      action: r.action,
      targetId: r.target_id,
      reason: r.reason,
      details: c.json<Record<string, unknown>>(r.details),
      createdAt: c.date(r.created_at),
    }),
  };
}

/** Stored as NULL when the key may be used from anywhere. */
export const allowedIpsParam = (ranges: readonly string[]): string | null => (ranges.length === 0 ? null : JSON.stringify(ranges));

/** Only set on records whose QR slipgate read from a picture; older rows have none. */
function sourceOf(source: string | null | undefined): Pick<VerifyTransactionRecord, 'source'> {
  return source === 'image' || source === 'qrcode' || source === 'line' ? { source } : {};
}

/** Only on records of verifications sent for a payment request: a record without one reads as it was written. */
function paymentOf(r: { payment_request_id?: string | null; payment_status?: string | null; payment_reason?: string | null }): Pick<VerifyTransactionRecord, 'payment'> {
  if (!r.payment_request_id) return {};
  return { payment: { requestId: r.payment_request_id, status: r.payment_status as PaymentStatus, reason: (r.payment_reason ?? null) as PaymentRefusal | null } };
}

/** Only on records of slips sent through LINE (and not yet redacted), like `source`. */
function lineUserOf(lineUserId: string | null | undefined): { lineUserId?: string } {
  return lineUserId ? { lineUserId } : {};
}
