// The end of a bench run: the table and each target on the console, and the
// results file, bench/results/<date>[-quick].md unless --out says otherwise.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { markdown, table, targets } from './report.js';
import type { BenchRun } from './run.js';

export function writeResults(run: BenchRun): void {
  const { report, args } = run;
  console.log(`\n${table(report.rows)}\n`);
  for (const s of report.skipped) console.log(`${s.engine} skipped: ${s.reason}`);
  for (const line of targets(report.rows)) console.log(`- ${line.replaceAll('**', '')}`);
  const out = args.out ?? join(run.root, 'bench', 'results', `${report.date}${args.quick ? '-quick' : ''}.md`);
  mkdirSync(join(out, '..'), { recursive: true });
  writeFileSync(out, `${markdown(report)}\n`);
  run.say(`results written to ${out}`);
}
