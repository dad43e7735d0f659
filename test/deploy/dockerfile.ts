// Reads the final stage of the repository's Dockerfile: what the image runs,
// as whom, with which environment, volume and healthcheck.
import { readFileSync } from 'node:fs';

const DOCKERFILE = new URL('../../Dockerfile', import.meta.url).pathname;

export interface ImageSpec {
  user: string;
  workdir: string;
  env: Record<string, string>;
  volumes: string[];
  entrypoint: string[];
  cmd: string[];
  /** The HEALTHCHECK's command (exec form) and its flags. */
  healthcheck: { cmd: string[]; flags: string };
  stopSignal: string;
  /** RUN lines, to see what the stage prepares. */
  runs: string[];
}

export function readImageSpec(text = readFileSync(DOCKERFILE, 'utf8')): ImageSpec {
  const lines = text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const finalStage = lines.slice(lines.findLastIndex((line) => /^FROM\s/i.test(line)));
  const spec: ImageSpec = { user: 'root', workdir: '/', env: {}, volumes: [], entrypoint: [], cmd: [], healthcheck: { cmd: [], flags: '' }, stopSignal: 'SIGTERM', runs: [] };
  for (const line of finalStage) {
    const [, instruction, rest = ''] = /^(\w+)\s*(.*)$/.exec(line)!;
    switch (instruction!.toUpperCase()) {
      case 'USER':
        spec.user = rest;
        break;
      case 'WORKDIR':
        spec.workdir = rest;
        break;
      case 'ENV':
        for (const pair of rest.split(/\s+/)) {
          const eq = pair.indexOf('=');
          if (eq <= 0) throw new Error(`Dockerfile: write ENV as KEY=value without spaces or quotes: ${line}`);
          spec.env[pair.slice(0, eq)] = pair.slice(eq + 1);
        }
        break;
      case 'VOLUME':
        spec.volumes.push(...(rest.startsWith('[') ? (JSON.parse(rest) as string[]) : rest.split(/\s+/)));
        break;
      case 'ENTRYPOINT':
        spec.entrypoint = JSON.parse(rest) as string[];
        break;
      case 'CMD':
        spec.cmd = JSON.parse(rest) as string[];
        break;
      case 'HEALTHCHECK': {
        const at = rest.indexOf('CMD ');
        spec.healthcheck = { flags: rest.slice(0, at).trim(), cmd: JSON.parse(rest.slice(at + 4)) as string[] };
        break;
      }
      case 'STOPSIGNAL':
        spec.stopSignal = rest;
        break;
      case 'RUN':
        spec.runs.push(rest);
        break;
    }
  }
  return spec;
}
