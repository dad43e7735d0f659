// `npm run docs`: writes the generated parts of the docs pages
// (reference.ts): the settings table and the CLI reference.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_PARTS, withPart } from './reference.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
for (const part of GENERATED_PARTS) {
  const path = join(ROOT, part.page);
  const before = readFileSync(path, 'utf8');
  const after = withPart(before, part);
  if (after !== before) writeFileSync(path, after);
  console.log(`${part.page}: ${after === before ? 'up to date' : 'written'}`);
}
