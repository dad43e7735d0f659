// The docs pages as the docs tests read them: every page (README.md,
// SECURITY.md and every docs/*.md, so pages added later are covered too),
// their fenced blocks with any `<!-- not run: reason -->` marker, their
// links and the bench results files they quote.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = new URL('../../', import.meta.url).pathname;

export function docsPages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', 'SECURITY.md', ...docs.sort()];
}

export const readPage = (page: string): string => readFileSync(join(ROOT, page), 'utf8');

export interface Block {
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  language: string;
  body: string;
  /** The reason of a `<!-- not run: … -->` line right above the fence (blank lines between allowed). */
  notRun: string | null;
}

export function blocks(page: string): Block[] {
  const text = readPage(page);
  const found: Block[] = [];
  for (const m of text.matchAll(/^( *)```([\w-]*)\n([\s\S]*?)^\1```$/gm)) {
    const before = text.slice(0, m.index).trimEnd().split('\n');
    const marker = /^\s*<!-- not run: (.*?) -->$/.exec(before.at(-1) ?? '');
    const indent = m[1]!.length;
    found.push({
      page,
      line: before.length + 1,
      language: m[2]!,
      body: m[3]!
        .split('\n')
        .map((l) => l.slice(indent))
        .join('\n'),
      notRun: marker ? marker[1]!.trim() : null,
    });
  }
  return found;
}

/** Text outside fenced blocks, where links are links. */
export function prose(page: string): string {
  return readPage(page).replace(/^( *)```[\s\S]*?^\1```$/gm, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2… */
export function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(page).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replaceAll(' ', '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

export interface Example {
  command: string;
  /** The `# …` lines right under the command: its output, `…` standing for anything. */
  expected: string | null;
}

/** A shell block split into commands (with their `\` continuation lines) and their expected output. */
export function examplesOf(block: string): Example[] {
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

/** The output as the page's comment lines show it: one line, `…` for anything. */
export function pattern(expected: string): RegExp {
  const literal = expected.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${literal.join('[\\s\\S]*')}$`);
}
