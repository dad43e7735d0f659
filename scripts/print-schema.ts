// Writes schema.graphql (the sorted SDL of the GraphQL admin API): npm run schema
import { writeFileSync } from 'node:fs';
import { schemaSdl } from '../src/graphql/schema.js';

const target = new URL('../schema.graphql', import.meta.url);
writeFileSync(target, schemaSdl());
console.log(`wrote ${target.pathname}`);
