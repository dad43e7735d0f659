// The verify path's one network call, under one time budget.
import type { Logger } from '../ports/logger.js';
import type { SlipQuery, Upstream, UpstreamResult } from '../ports/upstream.js';
import { UPSTREAM_MESSAGES } from '../errors.js';

const ABORT_GRACE_MS = 25;
const TIMED_OUT: UpstreamResult = { ok: false, kind: 'upstream_timeout', message: UPSTREAM_MESSAGES.upstream_timeout, upstream: null };

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
