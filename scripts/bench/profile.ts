// Summarises V8 CPU profiles (node --cpu-prof) by self time: the functions
// and the packages/areas where the CPU actually went.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  files: number;
  totalMs: number;
  /** Total minus idle: what the process spent working. */
  busyMs: number;
  functions: { name: string; where: string; selfMs: number }[];
  areas: { area: string; selfMs: number }[];
}

export function summariseProfiles(dir: string, buildDir: string, top = 20): ProfileSummary | null {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) return null;
  const byFunction = new Map<string, { name: string; where: string; selfMs: number }>();
  const byArea = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const self = new Map<number, number>();
    // timeDeltas[i + 1] is how long sample i was on the CPU.
    profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000));
    for (const [id, ms] of self) {
      const frame = nodes.get(id)!.callFrame;
      totalMs += ms;
      if (frame.functionName === '(idle)') idleMs += ms;
      const where = shortUrl(frame.url, buildDir);
      const name = frame.functionName || '(anonymous)';
      const key = `${name}|${where}|${frame.lineNumber}`;
      const entry = byFunction.get(key) ?? { name, where: where ? `${where}:${frame.lineNumber + 1}` : '', selfMs: 0 };
      entry.selfMs += ms;
      byFunction.set(key, entry);
      const area = areaOf(name, where);
      byArea.set(area, (byArea.get(area) ?? 0) + ms);
    }
  }
  const functions = [...byFunction.values()].filter((f) => f.name !== '(idle)').sort((a, b) => b.selfMs - a.selfMs).slice(0, top);
  const areas = [...byArea].filter(([a]) => a !== '(idle)').map(([area, selfMs]) => ({ area, selfMs })).sort((a, b) => b.selfMs - a.selfMs).slice(0, 15);
  return { files: files.length, totalMs, busyMs: totalMs - idleMs, functions, areas };
}

function shortUrl(url: string, buildDir: string): string {
  if (!url) return '';
  const path = url.replace(/^file:\/\//, '');
  if (path.startsWith(buildDir)) return path.slice(buildDir.length + 1);
  const nm = path.lastIndexOf('/node_modules/');
  return nm >= 0 ? path.slice(nm + '/node_modules/'.length) : path;
}

function areaOf(name: string, where: string): string {
  if (!where) return name.startsWith('(') ? name : '(native / V8 builtins)';
  if (where.startsWith('node:')) return `node:${where.slice(5).split('/').slice(0, 2).join('/')}`;
  if (where.startsWith('src/')) return where.split('/').slice(0, 2).join('/').replace(/\.js$/, '');
  if (where.startsWith('scripts/')) return 'baseline';
  const parts = where.split('/');
  return `${parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]} (npm)`;
}
