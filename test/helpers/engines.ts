// The storage engines end-to-end tests run against: each databaseUrl() call
// makes a fresh, throwaway database; dispose() removes them all.
import { join } from 'node:path';
import { createTestDatabase } from './postgres.js';
import { tempDir } from './temp.js';

export interface TestEngine {
  name: string;
  databaseUrl(): Promise<string>;
  dispose(): Promise<void>;
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
  ];
}

function engine(name: string, create: () => Promise<{ url: string; drop(): Promise<void> }>): TestEngine {
  const made: { drop(): Promise<void> }[] = [];
  return {
    name,
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
