// The network call of a verification under one time budget.
import type { Logger } from 'pino';
import type { Upstream, UpstreamResult } from '../upstream/upstream.js';
import { UPSTREAM_MESSAGES } from './errors.js';

const ABORT_GRACE_MS = 25;
const TIMED_OUT: UpstreamResult = { ok: false, kind: 'upstream_timeout', message: UPSTREAM_MESSAGES.upstream_timeout, upstream: null };

/**
 * One budget for the whole network call. At the deadline the call is
 * aborted and gets a moment to answer its own timeout (which names the
 * domain); it is never waited for beyond that.
 */
export function askNetwork(
  deps: { upstream: Upstream; logger: Logger; timeoutMs: number },
  query: { sendingBank: string; transRef: string; requestId: string },
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
