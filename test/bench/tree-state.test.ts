// The bench's results name the commit measured: a tree with uncommitted
// changes (or no git at all) cannot be tied to one, and index.ts refuses it
// unless --allow-dirty. Checked on a real throwaway git repository.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { treeState, untiedReason } from '../../scripts/bench/build.js';
import { tempDir } from '../helpers/temp.js';

const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(() => dirs.splice(0).forEach((d) => d.remove()));

function repository(): string {
  const dir = tempDir('slipgate-tree-');
  dirs.push(dir);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: dir.path, stdio: 'ignore' });
  git('init', '-q');
  mkdirSync(join(dir.path, 'src'));
  writeFileSync(join(dir.path, 'src', 'a.ts'), 'export {};\n');
  git('add', '-A');
  git('commit', '-qm', 'first');
  return dir.path;
}

describe('bench results and the tree they measure', () => {
  it('a clean checkout is named by its full commit', () => {
    const root = repository();
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    const tree = treeState(root);
    expect(tree).toEqual({ commit: head, changed: [] });
    expect(untiedReason(tree)).toBeNull();
  });

  it('a changed or an untracked file makes the tree untied, results files excepted', () => {
    const root = repository();
    mkdirSync(join(root, 'bench', 'results'), { recursive: true });
    writeFileSync(join(root, 'bench', 'results', 'earlier.md'), '# an earlier run\n');
    expect(untiedReason(treeState(root))).toBeNull();

    writeFileSync(join(root, 'src', 'a.ts'), 'export const changed = 1;\n');
    writeFileSync(join(root, 'src', 'new.ts'), 'export {};\n');
    const tree = treeState(root);
    expect(tree.changed.sort()).toEqual(['src/a.ts', 'src/new.ts']);
    expect(untiedReason(tree)).toMatch(/uncommitted changes \(src\/a\.ts, src\/new\.ts\)/);
  });

  it('outside a git checkout there is no revision to name', () => {
    const dir = tempDir('slipgate-nogit-');
    dirs.push(dir);
    const tree = treeState(dir.path);
    expect(tree.commit).toBeNull();
    expect(untiedReason(tree)).toMatch(/not a git checkout/);
  });
});
