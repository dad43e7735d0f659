// Refreshes docs/screenshots from a fresh run of the dashboard tests: they
// write their pictures to test-output/screenshots (ignored by git), and only
// this script copies them over the tracked ones.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FROM = join(ROOT, 'test-output', 'screenshots');
const TO = join(ROOT, 'docs', 'screenshots');

// Stale pictures of a renamed page must not be copied as if they were new.
rmSync(FROM, { recursive: true, force: true });
execFileSync(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'test/dashboard'], { cwd: ROOT, stdio: 'inherit' });
mkdirSync(TO, { recursive: true });
const pictures = readdirSync(FROM).filter((f) => f.endsWith('.png'));
if (pictures.length === 0) throw new Error(`the dashboard tests wrote no screenshots into ${FROM}`);
for (const f of pictures) copyFileSync(join(FROM, f), join(TO, f));
console.log(`copied ${pictures.length} screenshots into docs/screenshots`);
