// What the quickstart (README.md) and the checks example (docs/api.md) claim,
// beyond their printed output: the quickstart charges exactly one credit, its
// payment takes the checkout page and the sandbox slip it prints (from a
// fresh folder, no settings: the first start makes the key checkout links need),
// and of the checks example one call passes every check and the other fails
// both of its checks. Run as the pages write them (examples.test.ts runs
// every page's examples; this file checks these two closely) against a real
// slipgate on the sandbox network. The only substitutions are what a reader
// substitutes too: `npx slipgate` runs this checkout's CLI, the URL is this
// server's, and `slip_…` is the key the quickstart's `accounts create` printed.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSlipgate, type Child } from '../helpers/child.js';
import { tempDir } from '../helpers/temp.js';
import { examplesOf, pattern, readPage, type Example } from './pages.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

/** The examples of the sh block under a heading of a page whose first line matches. */
function examplesUnder(page: string, heading: string, firstLine: RegExp): Example[] {
  const text = readPage(page);
  const section = text.slice(text.indexOf(heading));
  const block = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => firstLine.test(b));
  if (block === undefined) throw new Error(`no sh block matching ${firstLine} under ${heading} in ${page}`);
  return examplesOf(block);
}

/** The output as the page's comment lines show it: one line, `…` for anything. */
function matches(output: string, expected: string): void {
  expect(output.replaceAll('\n', '')).toMatch(pattern(expected));
}

let server: Child;
let dir: string;
let removeDir: () => void;
let apiKey = '';

function run(command: string): string {
  const script = command
    .replaceAll('npx slipgate', `node ${SLIPGATE_CLI.join(' ')}`)
    .replaceAll('http://127.0.0.1:3000', server.publicUrl)
    .replaceAll('slip_…', apiKey);
  return execFileSync('bash', ['-c', script], { cwd: dir, env: asOnAFreshMachine(), encoding: 'utf8' });
}

/** This process's environment without any slipgate setting a reader would not have (the test run's own MongoDB allowance aside). */
function asOnAFreshMachine(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !['DATABASE_URL', 'SECRETS_KEY', 'SECRETS_KEY_FILE', 'PUBLIC_URL', 'UPSTREAMS', 'UPSTREAMS_FILE'].includes(name)) env[name] = value;
  }
  return env;
}

/** Runs the examples in one shell so `QR=$(…)` carries over, one output per command. */
function runAll(examples: Example[]): string[] {
  const marker = '@@readme-example-end@@';
  const out = run(examples.map((e) => `${e.command}\necho; echo ${marker}`).join('\n'));
  return out.split(`${marker}\n`).slice(0, examples.length).map((s) => s.trim());
}

beforeAll(async () => {
  ({ path: dir, remove: removeDir } = tempDir());
  // The quickstart's own defaults: ./data/slipgate.db in the folder it runs from, no setting at all.
  server = await spawnSlipgate({}, undefined, dir);
});
afterAll(async () => {
  server?.proc.kill('SIGTERM');
  await server?.exited;
  removeDir?.();
});

describe('the quickstart and the checks, as written, do what they say', () => {
  it('the quickstart creates an account, verifies a sandbox slip and charges one credit', () => {
    const examples = examplesUnder('README.md', '## Quickstart', /accounts create/);
    expect(examples.map((e) => e.command.split(' ').slice(0, 3).join(' '))).toEqual([
      'npx slipgate accounts',
      'QR=$(npx slipgate sandbox',
      'curl -s http://127.0.0.1:3000/api/v1/verify',
      'npx slipgate accounts',
    ]);
    const create = run(examples[0]!.command);
    matches(create, examples[0]!.expected!);
    apiKey = /slip_[A-Za-z0-9_-]+/.exec(create)![0];
    const outputs = runAll(examples.slice(1));
    matches(outputs[1]!, examples[2]!.expected!);
    const list = JSON.parse(run('npx slipgate accounts list --json')) as { credits: number; usage: number }[];
    expect(list.map((a) => [a.credits, a.usage])).toEqual([[99, 1]]);
  });

  it('the quickstart takes a payment: its checkout page, paid with the sandbox slip it prints, for one credit', async () => {
    expect(apiKey).not.toBe('');
    const examples = examplesUnder('README.md', '## Quickstart', /payments create/);
    expect(examples.map((e) => e.command.split(' ').slice(0, 3).join(' '))).toEqual(['npx slipgate receivers', 'npx slipgate payments', 'npx slipgate sandbox']);
    // The ids "printed above", as a reader copies them: the quickstart's account, then what each command printed.
    const ids: Record<string, string> = { 'acc_…': (JSON.parse(run('npx slipgate accounts list --json')) as { id: string }[])[0]!.id };
    let printed = '';
    for (const example of examples) {
      const out = run(Object.entries(ids).reduce((command, [placeholder, id]) => command.replaceAll(placeholder, id), example.command));
      if (example.expected !== null) matches(out, example.expected);
      for (const kind of ['rcv', 'pr']) {
        const id = new RegExp(`${kind}_[0-9a-f]{32}`).exec(out)?.[0];
        if (id && !ids[`${kind}_…`]) ids[`${kind}_…`] = id;
      }
      printed += out;
    }
    // The link as printed names the default public address; this server listens on a port of its own.
    const link = /Checkout link: (\S+)/.exec(printed)![1]!.replace('http://127.0.0.1:3000', server.publicUrl);
    expect((await fetch(link)).status).toBe(200);
    const form = new FormData();
    form.append('slip', new Blob([readFileSync(join(dir, 'slip.png'))], { type: 'image/png' }), 'slip.png');
    expect((await fetch(link, { method: 'POST', body: form, redirect: 'manual' })).status).toBe(303);
    const request = await fetch(`${server.publicUrl}/api/v1/payment-requests/${ids['pr_…']}`, { headers: { 'x-api-key': apiKey } });
    expect(((await request.json()) as { data: { status: string } }).data.status).toBe('paid');
    const list = JSON.parse(run('npx slipgate accounts list --json')) as { credits: number; usage: number }[];
    expect(list.map((a) => [a.credits, a.usage])).toEqual([[98, 2]]);
  });

  it('the checks example passes, and the one that fails on purpose fails', () => {
    expect(apiKey).not.toBe('');
    const examples = examplesUnder('docs/api.md', '## Checks', /sandbox qr .*--receiver-account/);
    expect(examples).toHaveLength(3);
    const outputs = runAll(examples);
    for (const [i, example] of examples.entries()) {
      if (example.expected === null) continue;
      matches(outputs[i]!, example.expected);
    }
    const [, passing, failing] = outputs.map((o) => (o === '' ? null : (JSON.parse(o) as { checks?: Record<string, { passed: boolean }> })));
    expect(Object.values(passing!.checks!).map((c) => c.passed)).toEqual([true, true, true, true, true]);
    expect(Object.values(failing!.checks!).map((c) => c.passed)).toEqual([false, false]);
  });
});
