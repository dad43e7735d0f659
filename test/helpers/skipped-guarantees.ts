// Cases that prove a guarantee but cannot run against this run's servers are
// skipped with a note (ctx.skip(note)) that starts with SKIPPED_GUARANTEE;
// test/reporters/skipped-guarantees.ts lists them at the end of the run.
// No vitest imports: the reporter loads this file in vitest's own process.
import type { TestContext, TestFunction, TestOptions } from 'vitest';

export const SKIPPED_GUARANTEE = 'guarantee not checked:';

const MONGO_REAL_COMMAND = 'MONGODB_URI=mongodb://127.0.0.1:27017/ SLIPGATE_MONGO_IS_REAL=1 npm test';

/** Why MongoDB concurrency cases are skipped on this run; undefined when a real MongoDB is configured. */
export function mongoConcurrencyLimitation(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.SLIPGATE_MONGO_IS_REAL
    ? undefined
    : 'FerretDB v1 (the test server unless MONGODB_URI and SLIPGATE_MONGO_IS_REAL=1 name a real MongoDB) applies ' +
        'updates by reading the document and writing it back, so a guarded $inc is not atomic under concurrency';
}

/** The note a skipped concurrency case carries: why, and how to run it. */
export function skippedNote(engine: string, limitation: string): string {
  const howToRun = engine === 'mongo' ? MONGO_REAL_COMMAND : 'a real server behind the engine under test';
  return `${SKIPPED_GUARANTEE} [${engine}] concurrency case needs a real server: ${limitation}. Run with: ${howToRun}`;
}

/** How a case is declared: `it`'s two common forms. */
export type CaseFn = (name: string, ...rest: [TestFunction] | [TestOptions, TestFunction]) => void;

/** Declares each case as one that skips itself with `note`, keeping its name and options. */
export function skippingCase(it: (name: string, options: TestOptions, fn: TestFunction) => void, note: string): CaseFn {
  return (name, ...rest) => {
    const options = rest.length === 2 ? rest[0] : {};
    it(name, options, (ctx: TestContext) => ctx.skip(note));
  };
}
