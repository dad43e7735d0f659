// graphql-js ships two builds (CommonJS "main", ESM "module") and refuses to
// mix objects from both. Node loads the CommonJS one for yoga, envelop and
// Pothos; a runner that prefers "module" (vite/vitest) would hand our own
// imports the other copy. Loading it the way Node does keeps one copy.
import { createRequire } from 'node:module';

export const graphqlJs = createRequire(import.meta.url)('graphql') as typeof import('graphql');
