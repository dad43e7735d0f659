// Throwaway MongoDB databases for engine tests. The server is MONGODB_URI
// when set (a developer's own mongod or replica set), otherwise the FerretDB
// instance test/global-setup.ts started for this run.
import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import { inject } from 'vitest';
import { MongoStore } from '../../src/store/mongo/mongo-store.js';
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

/** A migrated MongoStore on a throwaway database, and the raw driver on the same database (crash-window tests write through it). */
export async function openMongoStoreWithDriver(): Promise<{ store: MongoStore; raw: mongoose.mongo.Db; close(): Promise<void> }> {
  const db = createMongoDatabase();
  const store = new MongoStore(db.url);
  await store.migrate();
  const client = new mongoose.mongo.MongoClient(db.url, { serverSelectionTimeoutMS: 5_000 });
  await client.connect();
  return {
    store,
    raw: client.db(db.name),
    async close() {
      await client.close();
      await store.close();
      await db.drop();
    },
  };
}
