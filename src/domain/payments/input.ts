// The body of POST /api/v1/payment-requests, checked where it enters. The
// zod schema is also what openapi.json says about it (scripts/contract.ts).
import { z } from 'zod';
import { MAX_AMOUNT_SATANG, satangOf } from './money.js';

const MAX_REFERENCE_LENGTH = 128;
const MAX_EXPIRY_MINUTES = 1440;
const DEFAULT_EXPIRY_MINUTES = 30;

const AMOUNT = `amount must be a positive number of baht with at most 2 decimals, at most ${MAX_AMOUNT_SATANG / 100} (a PromptPay QR's maximum)`;
const REFERENCE = `reference must be 1 to ${MAX_REFERENCE_LENGTH} characters without control characters`;
const SUCCESS_URL = 'successUrl must be an https URL (http only for localhost or a loopback address) without credentials or fragment, at most 2048 characters';
const EXPIRY = `expiresInMinutes must be a whole number from 1 to ${MAX_EXPIRY_MINUTES}`;

export const paymentRequestBody = z
  .object({
    amount: z
      .union([z.number(), z.string()], { error: AMOUNT })
      .refine((v) => satangOf(v) !== null, AMOUNT)
      .meta({ description: 'What to ask for, in baht: 250, 250.5 or "250.00" (at most 2 decimals).' }),
    reference: z
      .string({ error: REFERENCE })
      .min(1, REFERENCE)
      .max(MAX_REFERENCE_LENGTH, REFERENCE)
      .refine((v) => !/\p{Cc}/u.test(v) && v.trim() !== '', REFERENCE)
      .meta({
        description:
          "The merchant's order id. The same reference again with the same amount, receiver and expiry answers the first request (HTTP 200), never a second one; with another, 409 and code 1026.",
      }),
    expiresInMinutes: z
      .number({ error: EXPIRY })
      .int(EXPIRY)
      .min(1, EXPIRY)
      .max(MAX_EXPIRY_MINUTES, EXPIRY)
      .optional()
      .meta({ description: `Minutes until the request expires (default ${DEFAULT_EXPIRY_MINUTES}).` }),
    receiver: z
      .string({ error: 'receiver must be a registered receiver id (rcv_…)' })
      .max(64, 'receiver must be a registered receiver id (rcv_…)')
      .optional()
      .meta({ description: 'A registered, active PromptPay receiver of the account; optional when it has exactly one.' }),
    successUrl: z
      .string({ error: SUCCESS_URL })
      .max(2048, SUCCESS_URL)
      .refine(isSuccessUrl, SUCCESS_URL)
      .optional()
      .meta({ description: 'Where the checkout page sends the customer (303) once paid, with paymentRequest, status=paid and signature added to its query (docs/payments.md#checkout-page).' }),
  })
  .strict();

export interface PaymentRequestInput {
  amount: number;
  reference: string;
  expiresInMinutes: number;
  receiver?: string;
  successUrl?: string;
}

/** The body as the domain uses it (amount in satang), or the message of its first problem. */
export function parsePaymentRequestBody(body: unknown): { ok: true; input: PaymentRequestInput } | { ok: false; message: string } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { ok: false, message: 'request body must be a JSON object' };
  const parsed = paymentRequestBody.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const message = issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}` : issue.message;
    return { ok: false, message };
  }
  const { amount, reference, expiresInMinutes, receiver, successUrl } = parsed.data;
  return {
    ok: true,
    input: { amount: satangOf(amount)!, reference, expiresInMinutes: expiresInMinutes ?? DEFAULT_EXPIRY_MINUTES, ...(receiver === undefined ? {} : { receiver }), ...(successUrl === undefined ? {} : { successUrl }) },
  };
}

/** Payment request ids as slipgate makes them: anything else is refused before a lookup. */
export const isPaymentRequestId = (value: unknown): value is string => typeof value === 'string' && /^pr_[0-9a-f]{32}$/.test(value);

/** https anywhere; http only for a loopback host (a shop testing on its own machine). */
function isSuccessUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password || url.hash || value.includes('#')) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname));
}
