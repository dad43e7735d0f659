// The verify path's one network call, under one time budget.
import type { Logger } from '../ports/logger.js';
import type { SlipQuery, Upstream, UpstreamResult } from '../ports/upstream.js';
import { UPSTREAM_MESSAGES } from '../errors.js';
import { writtenReference, type SlipRef } from './slip-qr.js';

const ABORT_GRACE_MS = 25;
const TIMED_OUT: UpstreamResult = { ok: false, kind: 'upstream_timeout', message: UPSTREAM_MESSAGES.upstream_timeout, upstream: null };

/**
 * What the network is asked about `slip`: its reference as the QR writes it
 * (slip-qr.ts, writtenReference), not the upper-case identity the records
 * use; the answer is checked against it without regard to case
 * (bank-answer.ts) and names the slip by its identity.
 */
export function slipQuery(slip: SlipRef, qrcode: string, requestId: string): SlipQuery {
  return { sendingBank: slip.sendingBank, transRef: writtenReference(qrcode, slip), qrcode, requestId };
}

/**
 * At the deadline the call is aborted and gets a moment to answer its own
 * timeout (which names the domain); it is never waited for beyond that.
 */
export function askNetwork(
  deps: { upstream: Upstream; timeoutMs: number; logger: Logger },
  query: SlipQuery,
): Promise<UpstreamResult> {
  const controller = new AbortController();
  const call = deps.upstream.verify(query, controller.signal).catch((err: unknown): UpstreamResult => {
    deps.logger.error({ err, requestId: query.requestId }, 'upstream adapter threw');
    return { ok: false, kind: 'upstream_error', message: UPSTREAM_MESSAGES.upstream_error, upstream: null };
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<UpstreamResult>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      timer = setTimeout(resolve, ABORT_GRACE_MS, TIMED_OUT);
    }, deps.timeoutMs);
  });
  return Promise.race([call, deadline]).finally(() => clearTimeout(timer));
}
