// `prepare`: builds dist/ (npm ci, npm install, a git dependency), except
// when npx runs it. `npx slipgate` in this checkout links the checkout into
// npx's cache, and npm runs `prepare` for that link: the whole build again
// (about 40 s) before the quickstart's first command answered. The build
// `npm ci` made is the one npx runs.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (process.env.npm_command === 'exec' && existsSync('dist/entry.cjs')) process.exit(0);
execSync('npm run build', { stdio: 'inherit' });
