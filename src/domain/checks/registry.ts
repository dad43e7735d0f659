// Every opt-in merchant check, one line each, in the order their results are
// reported. A new check is a file here (see check.ts) and a line below;
// `npm run contract` then regenerates openapi.json's Checks and the client's type.
import { amountCheck } from './amount.js';
import type { Check } from './check.js';
import { duplicateCheck } from './duplicate.js';
import { maxAgeCheck } from './max-age.js';
import { receiverAccountCheck } from './receiver-account.js';
import { receiverNameCheck } from './receiver-name.js';

export const CHECKS: readonly Check[] = [duplicateCheck, amountCheck, receiverAccountCheck, receiverNameCheck, maxAgeCheck];
