// Throwaway MongoDB databases for engine tests. The server is MONGODB_URI
// when set (a developer's own mongod or replica set), otherwise the FerretDB
// instance test/global-setup.ts started for this run.
import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import { inject } from 'vitest';
import { mongoConcurrencyLimitation } from './skipped-guarantees.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URI of the MongoDB-wire server of this test run. */
    mongoUri: string;
  }
}

/** Why concurrency cases need a real MongoDB; undefined when one is configured. */
export const MONGO_CONCURRENCY_LIMITATION = mongoConcurrencyLimitation();

function mongoServerUri(): string {
  return process.env.MONGODB_URI || inject('mongoUri');
}

export interface TestMongoDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** The server URI with `name` as its database, keeping query and auth source. */
function withDatabase(serverUri: string, name: string): string {
  const m = /^(mongodb(?:\+srv)?:\/\/)([^/?]*)(?:\/([^?]*))?(?:\?(.*))?$/.exec(serverUri);
  if (!m) throw new Error('MONGODB_URI is not a mongodb:// URL');
  const [, scheme, hosts, path = '', query = ''] = m;
  const params = new URLSearchParams(query);
  // Credentials are checked against the URI's database unless authSource
  // says otherwise; switching the database must not switch that.
  if (hosts!.includes('@') && !params.has('authSource')) params.set('authSource', path || 'admin');
  const q = params.toString();
  return `${scheme}${hosts}/${name}${q ? `?${q}` : ''}`;
}

/** Creates nothing up front (MongoDB creates on first write); drop() removes it. */
export function createMongoDatabase(): TestMongoDatabase {
  const name = `slipgate_test_${randomBytes(6).toString('hex')}`;
  const url = withDatabase(mongoServerUri(), name);
  return {
    name,
    url,
    async drop() {
      const client = new mongoose.mongo.MongoClient(url, { serverSelectionTimeoutMS: 5_000 });
      try {
        await client.connect();
        await client.db(name).dropDatabase();
      } finally {
        await client.close();
      }
    },
  };
}
