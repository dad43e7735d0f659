// Who is asking, on the payment request routes: the same x-api-key rules
// and codes as a verification (docs/contract.md#errors), without a body
// or a credit involved.
import type { KeyResolver } from '../key-lookup.js';
import type { Store } from '../ports/store.js';

export type KeyAuth = { ok: true; accountId: string } | { ok: false; error: 'missing_api_key' | 'invalid_api_key' | 'ip_not_allowed' | 'user_not_found' };

export async function authenticateKey(keys: KeyResolver, store: Store, apiKey: string | undefined, clientIp: string | undefined): Promise<KeyAuth> {
  if (!apiKey) return { ok: false, error: 'missing_api_key' };
  const found = await keys.resolve(apiKey, clientIp);
  if (!found.ok) return { ok: false, error: found.kind };
  const account = await store.getAccount(found.key.accountId);
  if (!account || account.deletedAt) return { ok: false, error: 'user_not_found' };
  return { ok: true, accountId: account.id };
}
