// Every shell example on every docs page, run as the page writes it against
// a real slipgate on the sandbox network, in a scratch folder, one shell per
// page (so `QR=$(…)` or a token made in one block carries to the next, as in
// a reader's terminal). A block is skipped only when a `<!-- not run: … -->`
// line above it says why (links.test.ts checks the reason is there). The
// `# …` lines right under a command are its output, `…` standing for
// anything; a command that fails fails the page.
//
// The substitutions are what a reader substitutes too: `npx slipgate` runs
// this checkout's CLI, the URLs are this server's, `slip_…` and `sgadm_…`
// are the key and admin token made last (by the page, or beforehand),
// `pr_…` / `rcv_…` the payment request and receiver made last, and
// `acc_…` / `adm_…` an account and admin token made beforehand.
import { execFileSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSlipgate, type Child } from '../helpers/child.js';
import { tempDir } from '../helpers/temp.js';
import { blocks, docsPages, examplesOf, pattern, type Example } from './pages.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const SHELL = new Set(['sh', 'bash', 'shell']);
const MARKER = '@@docs-example-end@@';

let server: Child;
let removeDir: () => void;
let dir: string;
let seeded: { accountId: string; apiKey: string; adminId: string; adminToken: string };

// The checkout page's links (docs/payments.md#checkout-page) need SECRETS_KEY, and PUBLIC_URL naming this server: its port is chosen first.
const SECRETS_KEY = '0123456789abcdef'.repeat(4);
let port: number;
const env = () => ({ ...process.env, DATABASE_URL: `sqlite:${join(dir, 'slipgate.db')}`, SECRETS_KEY, PUBLIC_URL: `http://127.0.0.1:${port}` });
const cli = (...args: string[]) => JSON.parse(execFileSync('node', [...SLIPGATE_CLI, ...args], { cwd: dir, env: env(), encoding: 'utf8' })) as Record<string, string>;

function substituted(command: string): string {
  return command
    .replaceAll('npx slipgate', `node ${SLIPGATE_CLI.join(' ')}`)
    .replaceAll('http://127.0.0.1:3000', server.publicUrl)
    .replaceAll('http://127.0.0.1:3001', server.adminUrl)
    .replaceAll('sgadm_…', '${DOC_ADMIN_TOKEN}')
    .replaceAll('slip_…', '${DOC_KEY}')
    .replace(/(?<![A-Za-z])adm_…/g, seeded.adminId)
    .replace(/(?<![A-Za-z])acc_…/g, seeded.accountId)
    .replace(/(?<![A-Za-z])pr_…/g, '${DOC_PAYMENT}')
    .replace(/(?<![A-Za-z])rcv_…/g, '${DOC_RECEIVER}');
}

/** One shell for the page's examples; each one's stdout, split by a marker. A failing command stops the shell. */
function runPage(examples: Example[]): string[] {
  const script = [
    `DOC_KEY='${seeded.apiKey}'; DOC_ADMIN_TOKEN='${seeded.adminToken}'; DOC_PAYMENT=''; DOC_RECEIVER=''; __o=$(mktemp)`,
    ...examples.map(
      (e, i) => `{ ${substituted(e.command)}
} > "$__o"; __s=$?; cat "$__o"; echo; echo ${MARKER}
if [ $__s -ne 0 ]; then echo "example ${i + 1} exited with $__s" >&2; exit 97; fi
__k=$(grep -o 'slip_[A-Za-z0-9_-]\\{32\\}' "$__o" | head -n1); if [ -n "$__k" ]; then DOC_KEY=$__k; fi
__t=$(grep -o 'sgadm_[A-Za-z0-9_-]\\{20,\\}' "$__o" | head -n1); if [ -n "$__t" ]; then DOC_ADMIN_TOKEN=$__t; fi
__p=$(grep -o 'pr_[0-9a-f]\\{32\\}' "$__o" | head -n1); if [ -n "$__p" ]; then DOC_PAYMENT=$__p; fi
__r=$(grep -o 'rcv_[0-9a-f]\\{32\\}' "$__o" | head -n1); if [ -n "$__r" ]; then DOC_RECEIVER=$__r; fi`,
    ),
  ].join('\n');
  // A bounded run: an example that waits for ever (a server in the foreground) fails instead of hanging the suite.
  const out = execFileSync('bash', ['-c', script], { cwd: dir, env: env(), encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' });
  return out.split(`${MARKER}\n`).slice(0, examples.length).map((s) => s.trim());
}

beforeAll(async () => {
  ({ path: dir, remove: removeDir } = tempDir());
  port = await freePort();
  // As the pages that deliver webhooks to a receiver on 127.0.0.1 start it (payments.md).
  server = await spawnSlipgate({ DATABASE_URL: `sqlite:${join(dir, 'slipgate.db')}`, PORT: String(port), SECRETS_KEY, PUBLIC_URL: `http://127.0.0.1:${port}`, WEBHOOK_ALLOW_PRIVATE: 'true' });
  const account = cli('accounts', 'create', '--name', 'Docs shop', '--credits', '1000', '--json');
  const admin = cli('admin-tokens', 'create', '--name', 'docs', '--role', 'admin', '--json');
  seeded = { accountId: account.accountId!, apiKey: account.apiKey!, adminId: admin.id!, adminToken: admin.token! };
});
afterAll(async () => {
  server?.proc.kill('SIGTERM');
  await server?.exited;
  removeDir?.();
});

const pagesWithExamples = docsPages().filter((page) => blocks(page).some((b) => SHELL.has(b.language) && b.notRun === null));

describe('docs examples, as written', () => {
  it('there are pages with examples to run (README, API, operations…)', () => {
    expect(pagesWithExamples).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/admin.md', 'docs/operations.md']));
  });

  it.each(pagesWithExamples)('%s', (page) => {
    const examples = blocks(page)
      .filter((b) => SHELL.has(b.language) && b.notRun === null)
      .flatMap((b) => examplesOf(b.body));
    const outputs = runPage(examples);
    expect(outputs).toHaveLength(examples.length);
    for (const [i, example] of examples.entries()) {
      // The page's output names the default addresses, as its commands do: this server's here too.
      const expected = example.expected?.replaceAll('http://127.0.0.1:3000', server.publicUrl).replaceAll('http://127.0.0.1:3001', server.adminUrl) ?? null;
      if (expected !== null) expect({ command: example.command, output: outputs[i]!.replaceAll('\n', '') }).toEqual({ command: example.command, output: expect.stringMatching(pattern(expected)) });
    }
  }, 90_000);
});

/** A port free a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as AddressInfo;
      probe.close(() => resolve(free));
    });
  });
}
