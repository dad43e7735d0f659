// Writes dist/revision.json at build time: the git revision this build was
// made from, so `slipgate --version` names it on a host where no git is.
// SLIPGATE_REVISION (e.g. a Docker build argument) wins; a tree without git
// (a source archive, the image's build stage) still builds, as "unknown".
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

function fromGit() {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty', '--abbrev=12'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null; // no git, or not a clone
  }
}

const given = process.env.SLIPGATE_REVISION?.trim();
const revision = given || fromGit() || 'unknown';
mkdirSync('dist', { recursive: true });
writeFileSync('dist/revision.json', `${JSON.stringify({ revision })}\n`);
