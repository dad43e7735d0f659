// "Was it paid to me?" by name, Thai or English.
import { z } from 'zod';
import { defineCheck } from './check.js';
import { nameTokens } from './names.js';
import { nameMatches, slipReceiverNames } from './receiver-rules.js';

const MAX_TEXT = 200;
const LENGTH = `checks.receiverName must be a string of at most ${MAX_TEXT} characters`;
const NO_NAME = 'checks.receiverName must contain a name, not only a title or company form';

export const receiverNameCheck = defineCheck({
  name: 'receiverName',
  request: z
    .string({ error: LENGTH })
    .min(1, NO_NAME)
    .max(MAX_TEXT, LENGTH)
    .meta({
      description:
        "Receiver name, Thai or English. Titles (นาย, นาง, นางสาว, น.ส., MR, MRS, MS, MISS…), legal forms (บจก., บริษัท…จำกัด, CO., LTD.…), case and spacing are ignored; the bank's truncated surname matches the full one.",
    }),
  keep: (receiverName: string) => (nameTokens(receiverName).length === 0 ? { ok: false, message: NO_NAME } : { ok: true, request: { receiverName } }),
  evaluate: (req, slip) => {
    if (req.receiverName === undefined) return undefined;
    const candidates = slipReceiverNames(slip);
    const hit = candidates.find((name) => nameMatches(name, req.receiverName!));
    return { passed: hit !== undefined, expected: req.receiverName, actual: hit !== undefined ? [hit] : candidates };
  },
});
