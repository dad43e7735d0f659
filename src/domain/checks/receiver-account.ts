// "Was it paid to my account?": the receiver's bank account or PromptPay
// number, against the bank's masked values.
import { z } from 'zod';
import { defineCheck } from './check.js';
import { accountMatches, slipReceiverAccounts } from './receiver-rules.js';

const MAX_TEXT = 200;
const MIN_ACCOUNT_DIGITS = 4;
const FORMAT = 'checks.receiverAccount must be a string of digits (dashes and spaces allowed)';

export const receiverAccountCheck = defineCheck({
  name: 'receiverAccount',
  request: z
    .string({ error: FORMAT })
    .max(MAX_TEXT, FORMAT)
    .regex(/^[\d\s-]*$/, FORMAT)
    .regex(/^[\s-]*(\d[\s-]*){4,}$/, `checks.receiverAccount needs at least ${MIN_ACCOUNT_DIGITS} digits`)
    .meta({
      description:
        "The receiver's bank account or PromptPay number, whole or a run of at least 4 of its digits. Matched against the bank's masked values: visible digits must agree in position (`xxx-x-x3109-x` matches `1233109`).",
    }),
  keep: (receiverAccount: string) => ({ ok: true, request: { receiverAccount } }),
  evaluate: (req, slip) => {
    if (req.receiverAccount === undefined) return undefined;
    const candidates = slipReceiverAccounts(slip).map((a) => a.value);
    const hit = candidates.find((masked) => accountMatches(masked, req.receiverAccount!));
    return { passed: hit !== undefined, expected: req.receiverAccount, actual: hit !== undefined ? [hit] : candidates };
  },
});
