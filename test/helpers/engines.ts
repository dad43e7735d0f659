// The storage engines end-to-end tests run against: each databaseUrl() call
// makes a fresh, throwaway database; dispose() removes them all.
import { join } from 'node:path';
import { it } from 'vitest';
import { createMongoDatabase, MONGO_CONCURRENCY_LIMITATION } from './mongo.js';
import { createTestDatabase } from './postgres.js';
import { skippedNote, skippingCase, type CaseFn } from './skipped-guarantees.js';
import { tempDir } from './temp.js';

export interface TestEngine {
  name: string;
  databaseUrl(): Promise<string>;
  dispose(): Promise<void>;
  /**
   * Set when the engine under test cannot prove concurrency guarantees
   * (FerretDB standing in for MongoDB); see concurrencyCase().
   */
  concurrencyLimitation?: string;
  /** describe.each prints engines by name. */
  toString(): string;
}

export function testEngines(): TestEngine[] {
  return [
    engine('sqlite', async () => {
      const dir = tempDir();
      return { url: `sqlite:${join(dir.path, 'e2e.db')}`, drop: async () => dir.remove() };
    }),
    engine('postgres', createTestDatabase),
    engine('mongo', async () => createMongoDatabase(), MONGO_CONCURRENCY_LIMITATION),
  ];
}

/**
 * `it` for a case that proves a concurrency guarantee: on an engine with a
 * known limitation it runs only against the real server; otherwise it is
 * reported as skipped, with why, at the end of the run.
 */
export function concurrencyCase(engine: TestEngine): CaseFn {
  if (!engine.concurrencyLimitation) return it as CaseFn;
  return skippingCase(it, skippedNote(engine.name, engine.concurrencyLimitation));
}

function engine(name: string, create: () => Promise<{ url: string; drop(): Promise<void> }>, concurrencyLimitation?: string): TestEngine {
  const made: { drop(): Promise<void> }[] = [];
  return {
    name,
    concurrencyLimitation,
    toString: () => name,
    async databaseUrl() {
      const db = await create();
      made.push(db);
      return db.url;
    },
    async dispose() {
      await Promise.all(made.splice(0).map((db) => db.drop()));
    },
  };
}
