// Lists, at the end of every run, the guarantees that were not checked
// (cases skipped with a SKIPPED_GUARANTEE note) and how to check them. It is
// registered before vitest's own reporter, so the run still ends with
// vitest's "Test Files … Tests …" summary, right after this list.
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { SKIPPED_GUARANTEE } from '../helpers/skipped-guarantees.js';

export default class SkippedGuaranteesReporter implements Reporter {
  private vitest?: Vitest;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const byNote = new Map<string, string[]>();
    for (const module of testModules) {
      for (const test of module.children.allTests('skipped')) {
        const result = test.result();
        const note = result.state === 'skipped' ? result.note : undefined;
        if (!note?.startsWith(SKIPPED_GUARANTEE)) continue;
        const names = byNote.get(note) ?? [];
        names.push(`${module.relativeModuleId} > ${test.fullName}`);
        byNote.set(note, names);
      }
    }
    if (byNote.size === 0) return;
    const total = [...byNote.values()].reduce((n, names) => n + names.length, 0);
    const lines = ['', `SKIPPED GUARANTEES: ${total} case(s) did not run, so what they prove is unchecked by this run:`];
    for (const [note, names] of byNote) {
      lines.push(`  ${note.slice(SKIPPED_GUARANTEE.length).trim()}`);
      for (const name of names) lines.push(`    - ${name}`);
    }
    lines.push('');
    const log = this.vitest?.logger;
    if (log) log.log(lines.join('\n'));
    else console.log(lines.join('\n'));
  }
}
