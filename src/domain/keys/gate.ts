// The one door of every route that takes an x-api-key: POST /api/v1/verify,
// the payment request routes and their QR pictures, and any route added
// later (src/http/keyed.ts is how a public route gets its caller, and only
// through here). One policy:
//
//   - a key that resolves is served, subject to its IP ranges (1024), even
//     from an address the brake holds: merchants behind one carrier NAT
//     with someone else's bad keys are not locked out;
//   - a missing key (1020), an unknown or revoked one (1021) and a key used
//     from outside its ranges (1024) are refusals the brake counts per
//     address (failed-auth-brake.ts): answered and recorded one by one up to
//     its limit, then 429 (held AUTH_BRAKE_DELAY_MS by the HTTP layer) and
//     counted into one record per address and window.
//
// The brake exists so a flood of bad keys costs little: a braked address
// without a key costs a map lookup; with one, the key's lookup (a SHA-256
// and the key cache, which also remembers unknown keys for a while, so the
// same bad key again reads no row) and no write.
import { AuthRefusals } from './auth-refusals.js';
import type { FailedAuthBrake } from './failed-auth-brake.js';
import type { KeyResolver } from './lookup.js';
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import type { ApiKey } from '../types.js';
import { ACCOUNT_ERRORS } from '../errors.js';
import { ipRefusalRecorded, requestErrorRecord, type Who } from '../verify/records.js';
import type { VerifyTrace } from '../verify/types.js';

export interface KeyGateDeps {
  store: Store;
  logger: Logger;
  keys: KeyResolver;
  newId: () => string;
  now?: () => Date;
  authBrake?: FailedAuthBrake;
}

/** Who knocked, as the HTTP layer saw it. */
export interface Knock {
  apiKey: string | undefined;
  requestId: string;
  /** The client's address (after TRUST_PROXY_HOPS), matched against the key's allowed ranges. */
  clientIp?: string;
  /** The address as the brake counts it (an IPv6 client by its /56); default clientIp. */
  clientAddress?: string;
  /** Where clientIp came from, said in the record of a 1024. */
  clientIpFrom?: string;
  /** Filled in with the key's account and id, and on 1024 the address judged. */
  trace?: VerifyTrace;
}

export type KeyRefusal =
  | { kind: 'throttled'; message: string; retryAfterSeconds: number }
  | { kind: 'account_error'; error: 'missing_api_key' | 'invalid_api_key' | 'ip_not_allowed' };

export type Admission = { ok: true; key: ApiKey } | { ok: false; refused: KeyRefusal };

export class KeyGate {
  private readonly refusals: AuthRefusals;
  private readonly now: () => Date;

  constructor(private readonly deps: KeyGateDeps) {
    this.now = deps.now ?? (() => new Date());
    this.refusals = new AuthRefusals(deps);
  }

  async admit(knock: Knock): Promise<Admission> {
    const address = knock.clientAddress ?? knock.clientIp ?? 'unknown';
    // Refusals only: a served key costs no record id here.
    const anonymous = (): Who => ({ id: this.deps.newId(), requestId: knock.requestId, accountId: null, keyId: null });
    // No key: nothing to look up, and a braked address learns nothing new.
    if (!knock.apiKey) return this.refuse('missing_api_key', anonymous(), address);
    const found = await this.deps.keys.resolve(knock.apiKey, knock.clientIp);
    if (found.ok) {
      if (knock.trace) Object.assign(knock.trace, { accountId: found.key.accountId, keyId: found.key.id });
      return { ok: true, key: found.key };
    }
    if (found.kind === 'invalid_api_key') return this.refuse('invalid_api_key', anonymous(), address);
    // Refused before anything about the account is read: a leaked key tells its holder nothing.
    // The answer stays the contract's; the record and the log say which address was judged, so a
    // proxy whose address slipgate saw (TRUST_PROXY_HOPS unset) is told apart from a wrong range.
    const seen = { clientIp: knock.clientIp ?? null, clientIpFrom: knock.clientIpFrom ?? null };
    if (knock.trace) Object.assign(knock.trace, { accountId: found.key.accountId, keyId: found.key.id, ...seen });
    return this.refuse('ip_not_allowed', { ...anonymous(), accountId: found.key.accountId, keyId: found.key.id }, address, ipRefusalRecorded(seen));
  }

  /** Writes what the brake counted and has not written yet (the process stops). */
  drain(): Promise<void> {
    return this.refusals.writeSummaries(true);
  }

  /** 429 once the address is past its limit (counted, not recorded); before, the contract's answer, recorded one by one. */
  private async refuse(error: 'missing_api_key' | 'invalid_api_key' | 'ip_not_allowed', who: Who, address: string, recorded: string = ACCOUNT_ERRORS[error].message): Promise<Admission> {
    const braked = this.refusals.braked(address, who.requestId);
    if (braked) return { ok: false, refused: braked };
    if (this.refusals.record(address, who.requestId)) {
      await this.deps.store.insertRequestError(requestErrorRecord(who, { kind: error, message: recorded }, this.now()));
    }
    return { ok: false, refused: { kind: 'account_error', error } };
  }
}
