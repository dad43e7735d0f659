// What a verify request's `checks` asks for once validated, and what each
// check reports back.
/** What a caller asked for, validated (amounts in satang). */
export interface CheckRequest {
  duplicate?: boolean;
  /** Expected amount in satang (validated to at most 2 decimals of baht). */
  amountSatang?: number;
  receiverAccount?: string;
  receiverName?: string;
  maxAgeMinutes?: number;
}

export interface DuplicateResult {
  passed: boolean;
  seen: boolean;
  /** Other successful verifications of this slip by the same account. */
  count: number;
  firstVerifiedAt: string | null;
}

/** The history lookup failed after the verification was charged. */
export interface DuplicateUnknown {
  passed: false;
  error: string;
}

export interface AmountResult {
  passed: boolean;
  expected: number;
  actual: number;
}

export interface ReceiverAccountResult {
  passed: boolean;
  expected: string;
  /** The masked value that matched, or every value compared when none did. */
  actual: string[];
}

export interface ReceiverNameResult {
  passed: boolean;
  expected: string;
  actual: string[];
}

export interface MaxAgeResult {
  passed: boolean;
  maxAgeMinutes: number;
  /** Whole minutes since the transaction (negative if the slip is from the future). */
  ageMinutes: number;
}

/** `checks.receiver`: set by the account's receiver policy (domain/receiver-policy.ts), not by the request. */
export interface ReceiverResult {
  /** A registered, active receiver was paid. */
  passed: boolean;
  policy: 'report' | 'require';
  /** The receiver paid, or null when none of the account's was. */
  receiverId: string | null;
  label: string | null;
  /** What the slip showed of its receiver, all of it agreeing with that receiver: its account digits, its name, or both. */
  matchedBy: ('account' | 'name')[];
}

export interface CheckResults {
  duplicate?: DuplicateResult | DuplicateUnknown;
  amount?: AmountResult;
  receiverAccount?: ReceiverAccountResult;
  receiverName?: ReceiverNameResult;
  maxAgeMinutes?: MaxAgeResult;
  receiver?: ReceiverResult;
}

/** Earlier verifications of the same slip by the same account. */
export type DuplicateHistory = { count: number; firstVerifiedAt: Date | null } | { error: string };

export interface CheckContext {
  now: Date;
  history?: DuplicateHistory;
}

export type CheckName = keyof CheckResults;
