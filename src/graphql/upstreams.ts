// Health of the bank network domains as this process sees them.
import type { DomainHealth } from '../upstream/pool.js';
import type { UpstreamFailureKind } from '../domain/ports/upstream.js';
import { builder } from './builder.js';
import { BreakerStateEnum, UpstreamFailureKindEnum } from './enums.js';

const UpstreamFailureCount = builder
  .objectRef<{ kind: UpstreamFailureKind; count: number }>('UpstreamFailureCount')
  .implement({
    fields: (t) => ({
      kind: t.expose('kind', { type: UpstreamFailureKindEnum }),
      count: t.exposeInt('count'),
    }),
  });

const UpstreamHealthRef = builder.objectRef<DomainHealth>('UpstreamHealth').implement({
  description: 'One bank network domain. Counters are per process since it started (or the domain was reconfigured).',
  fields: (t) => ({
    name: t.exposeString('name'),
    provider: t.exposeString('provider'),
    enabled: t.exposeBoolean('enabled'),
    weight: t.exposeFloat('weight'),
    priority: t.exposeInt('priority', { description: '1 is tried first; a higher number serves only when every domain above it cannot.' }),
    usable: t.exposeBoolean('usable', { description: 'False while the domain said it cannot serve (quota used up, key refused) and no quota reading says it is back.' }),
    unusableReason: t.exposeString('unusableReason', { nullable: true }),
    readsQuota: t.exposeBoolean('readsQuota', { description: 'Whether its provider has a quota call (slip APIs).' }),
    quotaRemaining: t.exposeInt('quotaRemaining', { nullable: true, description: 'The last quota reading; null without a limit or before any reading.' }),
    requests: t.exposeInt('requests'),
    failures: t.exposeInt('failures', { description: 'Every non-success answer, slip-not-found included.' }),
    failuresByKind: t.field({
      type: [UpstreamFailureCount],
      resolve: (h) => (Object.entries(h.failuresByKind) as [UpstreamFailureKind, number][]).map(([kind, count]) => ({ kind, count })),
    }),
    consecutiveFailures: t.exposeInt('consecutiveFailures'),
    p50Ms: t.exposeInt('p50Ms', { nullable: true, description: 'Over recent requests; null before the first.' }),
    p95Ms: t.exposeInt('p95Ms', { nullable: true }),
    breaker: t.expose('breaker', { type: BreakerStateEnum }),
  }),
});

builder.queryFields((t) => ({
  upstreams: t.field({
    type: [UpstreamHealthRef],
    description: 'Requests, failures, latency and circuit breaker of each configured bank network domain.',
    resolve: (_root, _args, ctx) => ctx.upstreamHealth(),
  }),
}));
