// docs/layout.md is the map of src/: every folder under src/ has its own line
// in the page's listing (a folder added later without one fails here), the
// listing names no folder that is gone, and every src/ path the page mentions
// elsewhere still exists (a move that forgets the page fails here too).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blocks, readPage, ROOT } from './pages.js';

const PAGE = 'docs/layout.md';

/** Every folder under src/, src/ included, as `src/a/b/`. */
function sourceFolders(dir = 'src/'): string[] {
  const below = readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => sourceFolders(`${dir}${e.name}/`));
  return [dir, ...below];
}

/** The folders the listing gives a line of their own: a line that starts with `src/…/`. */
function mappedFolders(): string[] {
  const listing = blocks(PAGE)[0];
  if (listing === undefined) throw new Error(`${PAGE} has no listing`);
  return listing.body.split('\n').flatMap((line) => /^(src\/(?:\S*\/)?)\s/.exec(line)?.[1] ?? []);
}

/** Every src/ path on the page, but for patterns (`src/upstream/<id>/`, `store-*.ts`). */
function mentionedPaths(): string[] {
  const paths = [...readPage(PAGE).matchAll(/(?<![\w./-])src\/[\w./<>*-]*/g)].map((m) => m[0].replace(/\.+$/, ''));
  return [...new Set(paths)].filter((path) => !/[<>*]/.test(path));
}

describe(PAGE, () => {
  it('gives every folder under src/ a line of its own', () => {
    const mapped = new Set(mappedFolders());
    expect(sourceFolders().filter((folder) => !mapped.has(folder))).toEqual([]);
  });

  it('maps no folder that does not exist, and none twice', () => {
    const mapped = mappedFolders();
    expect(mapped.filter((folder) => !existsSync(join(ROOT, folder)))).toEqual([]);
    expect(mapped.filter((folder, i) => mapped.indexOf(folder) !== i)).toEqual([]);
  });

  it('mentions only src/ paths that exist', () => {
    expect(mentionedPaths().filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });
});
