// What a finished re-check keeps once its personal data is removed
// (retention after RETENTION_DAYS, or an erasure request). It is redacted,
// not deleted: GET /api/v1/verifications/{id} answers from it for good (its
// status, reason, finish time and the charged record's id), and a checkout
// page reads how its slip ended (the outcome and the payment verdict in
// `result`). Its own columns stay (account, key, request, payment request,
// bank, reference, times, attempts, outcome), the footprint a verification
// record keeps too. The bank's answer in `result` loses what the same
// answer loses in a verification record (redaction.ts), the QR text goes by
// the same rule, and the receiver the caller asked to check (`options`, and
// the checks' expected and actual values in `result`) is blanked.
import { redactPersonalData } from '../personal-data/redaction.js';
import type { RedactRecheck } from '../ports/store.js';
import { slipQrHoldsOnlyReference } from '../verify/slip-qr.js';
import type { VerifiedSlip } from '../types.js';

/** The checks whose `expected` and `actual` name the receiver (checks/receiver-account.ts, checks/receiver-name.ts). */
const RECEIVER_CHECKS = ['receiverAccount', 'receiverName'] as const;

type Json = Record<string, unknown>;

export const redactRecheckPersonalData: RedactRecheck = ({ qrcode, result, options }) => ({
  qrcode: slipQrHoldsOnlyReference(qrcode) ? qrcode : '',
  result: redactedResult(result),
  options: redactedOptions(options),
});

/** The success answer's fields (worker.ts): the slip redacted, the receiver checks blanked, the verdict and ids kept. */
function redactedResult(result: string | null): string | null {
  const answer = parsedObject(result);
  // Text that does not parse cannot be redacted field by field: none of it is kept.
  if (!answer) return null;
  if ('data' in answer) answer.data = redactPersonalData({ qrcode: '', response: answer.data as VerifiedSlip }).response;
  const checks = answer.checks;
  if (isObject(checks)) {
    for (const name of RECEIVER_CHECKS) {
      const check = checks[name];
      // Blanked, not removed, so the shape stays what readers expect (`passed` stays).
      if (isObject(check)) checks[name] = { ...check, expected: '', actual: [] };
    }
  }
  return JSON.stringify(answer);
}

/** The checks asked for (a CheckRequest): read only while the re-check is open, so only the receiver goes. */
function redactedOptions(options: string | null): string | null {
  const request = parsedObject(options);
  if (!request) return null;
  for (const name of RECEIVER_CHECKS) if (name in request) request[name] = '';
  return JSON.stringify(request);
}

function parsedObject(text: string | null): Json | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
