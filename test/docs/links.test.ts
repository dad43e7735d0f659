// Every relative link on every docs page leads to a file that exists, and an
// anchor to a heading of that page; every bench results file a page or a
// deploy file quotes exists; every fenced block is of a known kind.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { anchors, blocks, docsPages, prose, readPage, ROOT } from './pages.js';

/** Kinds of fenced block: shell runs (docs-examples.test.ts), data parses, listings are output; code must say why it is not run. */
const SHELL = new Set(['sh', 'bash', 'shell']);
const DATA = new Set(['json', 'yaml', 'yml']);
const LISTING = new Set(['', 'text']);
const CODE = new Set(['ts', 'js', 'typescript', 'javascript']);

describe.each(docsPages())('%s', (page) => {
  it('every relative link resolves to a file, and every anchor to a heading', () => {
    const broken: string[] = [];
    for (const m of prose(page).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? page : normalize(join(dirname(page), path));
      if (!existsSync(join(ROOT, file))) {
        broken.push(`${target}: no file ${file}`);
        continue;
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchors(file).has(anchor)) broken.push(`${target}: no heading #${anchor} in ${file}`);
    }
    expect(broken).toEqual([]);
  });

  it('every fenced block is run, parsed, a listing, or says why it is not run', () => {
    const problems: string[] = [];
    for (const b of blocks(page)) {
      const where = `${page}:${b.line}`;
      if (b.notRun !== null) {
        if (b.notRun.length < 10) problems.push(`${where}: the reason it is not run is missing`);
        continue;
      }
      if (SHELL.has(b.language) || LISTING.has(b.language)) continue;
      if (DATA.has(b.language)) {
        // Illustrations with … stand for any value and are not data.
        if (b.body.includes('…')) continue;
        try {
          if (b.language === 'json') JSON.parse(b.body);
          else parseYaml(b.body);
        } catch (err) {
          problems.push(`${where}: ${b.language} does not parse: ${String(err)}`);
        }
        continue;
      }
      problems.push(CODE.has(b.language) ? `${where}: ${b.language} code is not run here; mark it <!-- not run: why -->` : `${where}: unknown block kind "${b.language}"`);
    }
    expect(problems).toEqual([]);
  });
});

describe('quoted bench results', () => {
  const deployFiles = (dir: string): string[] =>
    readdirSync(join(ROOT, dir)).flatMap((name) => (statSync(join(ROOT, dir, name)).isDirectory() ? deployFiles(join(dir, name)) : [join(dir, name)]));
  const sources = [...docsPages(), ...deployFiles('deploy')];

  it('every results file a page or a deploy file names exists in bench/results/', () => {
    const missing: string[] = [];
    let quoted = 0;
    for (const source of sources) {
      const text = source.endsWith('.md') ? readPage(source) : readFileSync(join(ROOT, source), 'utf8');
      // Names may be split over two comment lines ("bench/results/\n# 2026-…").
      for (const m of text.replace(/\/\n#\s*/g, '/').matchAll(/\b(20\d\d-\d\d-\d\d[\w.-]*?\.md)\b/g)) {
        quoted++;
        if (!existsSync(join(ROOT, 'bench', 'results', m[1]!))) missing.push(`${source}: ${m[1]}`);
      }
    }
    expect(quoted).toBeGreaterThan(5);
    expect(missing).toEqual([]);
  });
});
