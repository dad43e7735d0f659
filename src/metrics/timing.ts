// Thin wrappers that time what passes through them, so neither the store
// engines nor the pool need to know about metrics.
import type { Store } from '../store/store.js';
import type { Upstream } from '../upstream/upstream.js';
import type { Metrics } from './metrics.js';

const seconds = (started: number) => (performance.now() - started) / 1000;

/**
 * The same store, each method call timed under its own name. Only the
 * Store interface's methods are ever called, so the label set is bounded.
 */
export function timedStore(store: Store, metrics: Metrics): Store {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      let fn = wrapped.get(prop);
      if (!fn) {
        const method = value as (...args: unknown[]) => unknown;
        fn = (...args: unknown[]) => {
          const started = performance.now();
          let result: unknown;
          try {
            result = method.apply(target, args);
          } catch (err) {
            metrics.storeOperation(prop, false, seconds(started));
            throw err;
          }
          if (!(result instanceof Promise)) return result;
          return result.then(
            (v: unknown) => {
              metrics.storeOperation(prop, true, seconds(started));
              return v;
            },
            (err: unknown) => {
              metrics.storeOperation(prop, false, seconds(started));
              throw err;
            },
          );
        };
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}

/** One bank network domain's adapter, each request counted and timed under the domain's configured name. */
export function timedUpstream(inner: Upstream, domain: string, metrics: Metrics): Upstream {
  return {
    name: inner.name,
    async verify(query, signal) {
      const started = performance.now();
      try {
        const result = await inner.verify(query, signal);
        metrics.bankRequest(domain, result.ok ? 'success' : result.kind, seconds(started));
        return result;
      } catch (err) {
        metrics.bankRequest(domain, 'upstream_error', seconds(started));
        throw err;
      }
    },
    close: () => inner.close?.(),
  };
}
