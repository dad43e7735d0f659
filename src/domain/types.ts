// Domain types: plain data, no framework or driver imports.
import type { PaymentRecord } from './payments/types.js';

export interface Account {
  id: string;
  name: string;
  /** Spendable credits (held credits are already taken out). */
  credits: number;
  /** Credits currently held by in-flight verifications. */
  held: number;
  /** Successful verifications charged to this account. */
  usage: number;
  createdAt: Date;
  deletedAt: Date | null;
  /** What verifications do with the registered receivers (domain/receiver-policy.ts); 'off' by default. */
  receiverPolicy: ReceiverPolicy;
}

/** `off`: plain answers; `report`: successes carry `checks.receiver`; `require`: a slip paid to no active registered receiver is refused (1025). */
export const RECEIVER_POLICIES = ['off', 'report', 'require'] as const;
export type ReceiverPolicy = (typeof RECEIVER_POLICIES)[number];

/** PromptPay target types as slips name them (a tax ID is a NATID too). */
export type PromptPayType = 'MSISDN' | 'NATID' | 'EWALLETID';

/** A receiving account a merchant account registered: where its customers' money should go. */
export interface Receiver {
  id: string;
  accountId: string;
  kind: 'bank' | 'promptpay';
  /** 3-digit bank code; null for PromptPay targets. */
  bankCode: string | null;
  /** Digits only: the account number, or the PromptPay id (mobile in its 0… form). */
  number: string;
  /** Null for bank accounts. */
  proxyType: PromptPayType | null;
  /** The names banks print; at least one is set. */
  nameTh: string | null;
  nameEn: string | null;
  /** The merchant's own word for it (branch, till). */
  label: string | null;
  active: boolean;
  createdAt: Date;
}

export interface ApiKey {
  id: string;
  accountId: string;
  /** Visible start of the key (e.g. `slip_Ab12Cd34`), safe to show and log. */
  prefix: string;
  /** SHA-256 hex of the whole key; the key itself is never stored. */
  hash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** CIDR ranges (canonical form) the key may be used from; empty = any address. */
  allowedIps: string[];
}

/** One credit taken from an account while a verification is in flight. */
export interface CreditHold {
  /** Same id as the audit record the verification will produce. */
  id: string;
  accountId: string;
  keyId: string;
  createdAt: Date;
  /**
   * The lease of the serving process that took it: once that lease expires
   * the hold is recovered at once. Null (old holds, or a process unsure its
   * lease is still live) leaves it to the age rule (HOLD_STALE_MS).
   */
  instanceId?: string | null;
}

/** Why a request failed; every failure is free. Listed once, the type follows. */
export const ERROR_KINDS = [
  'missing_api_key',
  'invalid_api_key',
  'user_not_found',
  'insufficient_fund',
  /** A valid key used from an address outside its allowed ranges. */
  'ip_not_allowed',
  'invalid_qr',
  'slip_not_found',
  'upstream_timeout',
  'upstream_error',
  'upstream_unavailable',
  /** The bank answered about another slip than the QR names. */
  'upstream_mismatch',
  /** The process died mid-verification; recovery released the hold. */
  'interrupted',
  /** An image body whose picture has no readable slip QR (or took too long to read). */
  'unreadable_image',
  /**
   * One record for many: the requests one client address sent in one window
   * after too many refused authentications (1020, 1021, 1024), answered 429
   * and counted instead of recorded one by one (domain/failed-auth-brake.ts).
   */
  'auth_rate_limited',
  /** The account's receiver policy is `require` and the slip paid no active registered receiver (1025). */
  'receiver_not_registered',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

/** Audit record of a successful (charged) verification. */
export interface VerifyTransactionRecord {
  id: string;
  accountId: string;
  keyId: string;
  requestId: string;
  qrcode: string;
  transactionId: string;
  amount: number;
  sendingBank: string;
  receivingBank: string;
  upstream: string;
  latencyMs: number;
  /** The `data` object returned to the caller (includes rawData). */
  response: VerifiedSlip;
  createdAt: Date;
  /** Set when the QR was read by slipgate from a picture (the picture itself is never kept); absent means the caller sent the QR text. */
  source?: 'qrcode' | 'image' | 'line';
  /** The LINE user who sent the slip (source 'line'): personal data, removed by retention and erasure. */
  lineUserId?: string | null;
  /**
   * When the personal data (names, accounts, proxies, rawData, a QR carrying
   * more than the reference) was removed: by retention or an erasure request
   * (domain/retention.ts). Absent or null: the record is whole.
   */
  redactedAt?: Date | null;
  /** The payment request the slip was sent for and what the slip did to it; absent when it named none. */
  payment?: PaymentRecord | null;
}

/** Audit record of a failed request (never charged). */
export interface RequestErrorRecord {
  id: string;
  accountId: string | null;
  keyId: string | null;
  requestId: string;
  qrcode: string | null;
  /** The slip's transaction reference and sending bank, when its QR parsed: a failed slip is found like a verified one. */
  transactionId: string | null;
  sendingBank: string | null;
  kind: ErrorKind;
  message: string;
  upstream: string | null;
  latencyMs: number | null;
  createdAt: Date;
  /** The LINE user who sent the slip, when it came through a LINE channel (keyId is then `line:<channel id>`). */
  lineUserId?: string | null;
}

export type LedgerKind = 'initial' | 'top_up' | 'adjustment';

/** A change of an account's credits made by a person (not by a verification). */
export interface LedgerEntry {
  id: string;
  accountId: string;
  kind: LedgerKind;
  delta: number;
  reason: string;
  actor: string;
  /** Same key → same entry; a retried top-up never adds credits twice. */
  idempotencyKey: string | null;
  createdAt: Date;
}

/** Upstream party object (docs/contract.md#responses): proxy/account are objects or "". */
export interface RawParty {
  proxy?: { type?: string; value?: string } | '';
  displayName?: string;
  name?: string;
  account?: { type?: string; value?: string } | '';
  [key: string]: unknown;
}

/** The verification network's transaction payload, passed through as rawData. */
export interface RawSlipData {
  amount: string | number;
  transDate: string;
  transTime: string;
  transRef: string;
  sendingBank: string;
  receivingBank: string;
  sender: RawParty | '';
  receiver: RawParty | '';
  [key: string]: unknown;
}

/** `data` of the success response (docs/contract.md#responses). */
export interface VerifiedSlip {
  amount: number;
  dateTime: string;
  timestamp: number;
  transactionId: string;
  senderBankAccountNumber: string;
  senderName: string;
  senderNameEN: string;
  senderBank: string;
  senderBankCode: string;
  receiverBankAccountNumber: string;
  receiverName: string;
  receiverNameEN: string;
  receiverBank: string;
  receiverBankCode: string;
  receiverPromptpay: string;
  receiverProxyType: string;
  rawData: Record<string, unknown>;
}

export type AdminRole = 'viewer' | 'support' | 'admin';

/** A token for the internal GraphQL API; stored as SHA-256 like API keys. */
export interface AdminToken {
  id: string;
  name: string;
  role: AdminRole;
  prefix: string;
  hash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** Who did what through the admin surfaces (GraphQL, CLI), and why. */
export interface AdminEvent {
  id: string;
  /** e.g. `admin:<tokenId>:<name>` or `cli:<user>`. */
  actor: string;
  /** e.g. `createAccount`, `topUpCredits`, `revokeApiKey`. */
  action: string;
  /** Account, key or token the action was about. */
  targetId: string | null;
  reason: string | null;
  details: Record<string, unknown>;
  createdAt: Date;
}
