// A running slipgate with a merchant account, its PromptPay receiver, and
// the calls of the payment request routes.
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import type { TestApp } from '../helpers/app.js';

const PROMPTPAY = '0812345678';
export const PATH = '/api/v1/payment-requests';

export interface Shop {
  accountId: string;
  apiKey: string;
  receiverId: string;
}

export async function shop(app: TestApp, credits = 10, promptPay = PROMPTPAY): Promise<Shop> {
  const { accountId, apiKey } = await app.account(credits);
  const receiver = await app.admin.addReceiver('test', { accountId, promptPay, nameEn: 'SOMCHAI JAIDEE' });
  return { accountId, apiKey, receiverId: receiver.id };
}

export async function call(app: TestApp, method: string, path: string, apiKey: string | null, body?: unknown) {
  const res = await fetch(app.publicUrl + path, {
    method,
    headers: { ...(apiKey === null ? {} : { 'x-api-key': apiKey }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const type = res.headers.get('content-type') ?? '';
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, type, bytes, body: type.startsWith('application/json') ? JSON.parse(bytes.toString()) : null };
}

export const create = (app: TestApp, s: Shop, body: Record<string, unknown>) => call(app, 'POST', PATH, s.apiKey, body);

/**
 * A sandbox slip paid to `promptPay` for `amount` baht at `paidAt`; with
 * `lateSeconds`, one the sandbox does not know until that long after now
 * (by its clock), with `neverFound` one it never knows.
 */
export function slipFor(opts: { amount: number; promptPay?: string; paidAt?: Date; lateSeconds?: number; neverFound?: boolean }): string {
  const late = opts.lateSeconds !== undefined;
  const outcome = late ? { outcome: 'late' as const, afterSeconds: opts.lateSeconds } : opts.neverFound ? { outcome: 'not-found' as const } : {};
  // The name as the shop's bank prints it: the receiver rules want the name to agree with the digits. A late slip's
  // publishing time leaves room for it only cut, as banks print long names.
  const name = { receiverName: late ? 'SOMCHAI J' : 'SOMCHAI JAIDEE' };
  return sandboxQr({ amount: opts.amount, ...outcome, details: { receiverProxy: { type: 'MSISDN', digits: opts.promptPay ?? PROMPTPAY }, ...name, paidAt: opts.paidAt ?? new Date() } });
}
