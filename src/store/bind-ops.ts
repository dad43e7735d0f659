// Engines keep their operations in one file per section, each a function
// taking the engine's connection first; the engine's class binds every
// section to its connection once, so no method is written twice.

/** A section's operations with the connection already given. */
export type Bound<S, C> = {
  [K in keyof S as S[K] extends (conn: C, ...args: never[]) => unknown ? K : never]: S[K] extends (conn: C, ...args: infer A) => infer R ? (...args: A) => R : never;
};

export function bindOps<C, S extends object>(conn: C, section: S): Bound<S, C> {
  const bound: Record<string, unknown> = {};
  for (const [name, op] of Object.entries(section)) {
    if (typeof op === 'function') bound[name] = (...args: unknown[]) => (op as (conn: C, ...rest: unknown[]) => unknown)(conn, ...args);
  }
  return bound as Bound<S, C>;
}
