// The README's shell examples, run as the README writes them against a real
// slipgate on the sandbox network. Commands and their expected output are
// read from README.md itself, so an example that drifts from what slipgate
// does fails here. The only substitutions are what a reader substitutes too:
// `npx slipgate` runs this checkout's CLI, the URL is this server's, and
// `slip_…` is the key the quickstart's `accounts create` printed.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSlipgate, type Child } from '../helpers/child.js';
import { tempDir } from '../helpers/temp.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
// The examples run in a scratch folder, where a bare `tsx` would not resolve.
const TSX = import.meta.resolve('tsx');

interface Example {
  command: string;
  /** The `# …` lines right under the command: its output, `…` standing for anything. */
  expected: string | null;
}

/** The sh blocks under a heading, split into commands and their expected output. */
function examplesUnder(heading: string, firstLine: RegExp): Example[] {
  const section = README.slice(README.indexOf(heading));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const block = blocks.find((b) => firstLine.test(b));
  if (block === undefined) throw new Error(`no sh block matching ${firstLine} under ${heading}`);
  const examples: Example[] = [];
  const lines = block.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '' || line.startsWith('#')) continue;
    let command = line;
    while (command.endsWith('\\')) command = `${command}\n${lines[++i]!}`;
    const comments: string[] = [];
    while (lines[i + 1]?.startsWith('#')) comments.push(lines[++i]!.replace(/^#\s*/, ''));
    examples.push({ command: command.replace(/\s+#.*$/, ''), expected: comments.length > 0 ? comments.join('') : null });
  }
  return examples;
}

/** The output as the README's comment lines show it: one line, `…` for anything. */
function matches(output: string, expected: string): void {
  expect(output.replaceAll('\n', '')).toMatch(pattern(expected));
}

function pattern(expected: string): RegExp {
  const literal = expected.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${literal.join('[\\s\\S]*')}$`);
}

let server: Child;
let dir: string;
let removeDir: () => void;
let apiKey = '';

function run(command: string): string {
  const script = command
    .replaceAll('npx slipgate', `node --import ${TSX} ${CLI}`)
    .replaceAll('http://127.0.0.1:3000', server.publicUrl)
    .replaceAll('slip_…', apiKey);
  return execFileSync('bash', ['-c', script], { cwd: dir, env: { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'slipgate.db')}` }, encoding: 'utf8' });
}

/** Runs the examples in one shell so `QR=$(…)` carries over, one output per command. */
function runAll(examples: Example[]): string[] {
  const marker = '@@readme-example-end@@';
  const out = run(examples.map((e) => `${e.command}\necho; echo ${marker}`).join('\n'));
  return out.split(`${marker}\n`).slice(0, examples.length).map((s) => s.trim());
}

beforeAll(async () => {
  ({ path: dir, remove: removeDir } = tempDir());
  server = await spawnSlipgate({ DATABASE_URL: `sqlite:${join(dir, 'slipgate.db')}` });
});
afterAll(async () => {
  server?.proc.kill('SIGTERM');
  await server?.exited;
  removeDir?.();
});

describe('README examples, as written', () => {
  it('the quickstart creates an account, verifies a sandbox slip and charges one credit', () => {
    const examples = examplesUnder('## Quickstart', /accounts create/);
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

  it('the checks example passes, and the one that fails on purpose fails', () => {
    expect(apiKey).not.toBe('');
    const examples = examplesUnder('## Beyond the contract', /sandbox qr .*--receiver-account/);
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
