// A thin wrapper that times what passes through it, so the store engines
// need not know about metrics. (The pool reports bank requests itself: only
// it knows whether an answer was accepted.)
import { StoreError, type Store } from '../domain/ports/store.js';
import type { Metrics, StoreOperationResult } from './metrics.js';

const seconds = (started: number) => (performance.now() - started) / 1000;

/**
 * The same store, each method call timed under its own name. Only the
 * Store interface's methods are ever called, so the label set is bounded.
 */
export function timedStore(store: Store, metrics: Metrics): Store {
  // Keyed by the function, not its name: a method replaced on the store
  // (tests inject failures that way) is timed and called as it now is.
  const wrapped = new WeakMap<object, unknown>();
  return new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      const method = value as (...args: unknown[]) => unknown;
      let fn = wrapped.get(method);
      if (!fn) {
        fn = (...args: unknown[]) => {
          const started = performance.now();
          let result: unknown;
          try {
            result = method.apply(target, args);
          } catch (err) {
            metrics.storeOperation(prop, failure(err), seconds(started));
            throw err;
          }
          if (!(result instanceof Promise)) return result;
          return result.then(
            (v: unknown) => {
              metrics.storeOperation(prop, 'ok', seconds(started));
              return v;
            },
            (err: unknown) => {
              metrics.storeOperation(prop, failure(err), seconds(started));
              throw err;
            },
          );
        };
        wrapped.set(method, fn);
      }
      return fn;
    },
  });
}

function failure(err: unknown): StoreOperationResult {
  return err instanceof StoreError && err.code !== 'unavailable' ? err.code : 'error';
}
