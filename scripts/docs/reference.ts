// The generated parts of docs/configuration.md and docs/cli.md: the settings
// table from the config schema (src/config.ts) with settings.ts's meanings,
// and the CLI reference from the commands' own commander help. Each page keeps
// its hand-written text; only what lies between a part's two markers is
// generated (npm run docs writes it, test/docs/generated.test.ts checks it).
import type { Command } from 'commander';
import { z } from 'zod';
import { slipgateProgram } from '../../src/cli/program.js';
import { configSchema } from '../../src/config.js';
import { OTHER_SETTINGS, SCHEMA_SETTINGS, TOPICS, type SettingDoc } from './settings.js';

export interface GeneratedPart {
  /** The page, relative to the repository. */
  page: string;
  marker: string;
  content(): string;
}

export const GENERATED_PARTS: GeneratedPart[] = [
  { page: 'docs/configuration.md', marker: 'settings', content: settingsTable },
  { page: 'docs/cli.md', marker: 'commands', content: cliReference },
];

const start = (marker: string) => `<!-- generated:${marker} (npm run docs; edit scripts/docs/, not this part) -->`;
const end = (marker: string) => `<!-- end generated:${marker} -->`;

/** The page with the part between its markers replaced; throws when the markers are missing. */
export function withPart(page: string, part: GeneratedPart): string {
  const from = page.indexOf(start(part.marker));
  const to = page.indexOf(end(part.marker));
  if (from < 0 || to < from) throw new Error(`${part.page}: the markers of the generated part "${part.marker}" are missing`);
  return `${page.slice(0, from)}${start(part.marker)}\n${part.content()}\n${page.slice(to)}`;
}

interface JsonSchema {
  type?: string;
  minimum?: number;
  maximum?: number;
  enum?: string[];
  const?: string;
  anyOf?: JsonSchema[];
  pattern?: string;
}

/** Every setting, one row each, by topic. */
function settingsTable(): string {
  const json = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, JsonSchema> };
  const defaults = configSchema.parse({}) as Record<string, unknown>;
  const rows: { name: string; doc: SettingDoc; default: string; accepts: string }[] = [];
  for (const [name, doc] of Object.entries(SCHEMA_SETTINGS)) {
    const rule = json.properties[name];
    if (rule === undefined) throw new Error(`settings.ts describes ${name}, which src/config.ts does not have`);
    const value = defaults[name];
    rows.push({ name, doc, default: doc.default ?? (value === undefined ? 'unset' : `\`${String(value)}\``), accepts: doc.accepts ?? accepts(name, rule) });
  }
  for (const [name, doc] of Object.entries(OTHER_SETTINGS)) rows.push({ name, doc, default: doc.default, accepts: doc.accepts });
  rows.sort((a, b) => TOPICS.indexOf(a.doc.topic) - TOPICS.indexOf(b.doc.topic));
  return [
    '| Setting | Topic | Default | Accepts | Meaning |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| \`${r.name}\` | ${r.doc.topic} | ${r.default} | ${r.accepts} | ${r.doc.meaning} |`),
  ].join('\n');
}

/** The schema's rule in words; a rule it cannot say needs `accepts` in settings.ts. */
function accepts(name: string, rule: JsonSchema): string {
  if (rule.anyOf) return rule.anyOf.map((r) => accepts(name, r)).join(', or ');
  if (rule.const !== undefined) return `\`${rule.const}\``;
  if (rule.enum) return rule.enum.map((v) => `\`${v}\``).join(', ');
  if (rule.type === 'integer') {
    const unit = name.endsWith('_MS') ? ' ms' : '';
    if (rule.maximum === undefined || rule.maximum >= Number.MAX_SAFE_INTEGER) return `≥ ${rule.minimum ?? 0}${unit}`;
    return `${rule.minimum ?? 0}–${rule.maximum}${unit}`;
  }
  if (rule.type === 'string' && rule.pattern === undefined) return 'text';
  throw new Error(`${name}: say in scripts/docs/settings.ts what it accepts`);
}

/** Every command's help as commander prints it (`slipgate <command> --help`), in the order `slipgate --help` lists them. */
function cliReference(): string {
  const sections: string[] = [];
  const walk = (cmd: Command, path: string[]) => {
    const name = [...path, cmd.name()];
    sections.push(`### \`${name.join(' ')}\`\n\n\`\`\`text\n${helpOf(cmd)}\n\`\`\``);
    for (const sub of cmd.commands) walk(sub, name);
  };
  walk(withoutSettings(slipgateProgram), []);
  return sections.join('\n\n');
}

/** Built as with none of slipgate's settings in the environment, so a default an option reads from one (verify's --url) shows as shipped. */
function withoutSettings<T>(build: () => T): T {
  const saved = { ...process.env };
  for (const name of [...Object.keys(SCHEMA_SETTINGS), ...Object.keys(OTHER_SETTINGS)]) delete process.env[name];
  try {
    return build();
  } finally {
    Object.assign(process.env, saved);
  }
}

/** The help text with what addHelpText adds, at a fixed width so the page does not depend on the terminal. */
function helpOf(cmd: Command): string {
  let text = '';
  cmd.configureHelp({ helpWidth: 100 });
  cmd.configureOutput({ writeOut: (s) => (text += s), getOutHelpWidth: () => 100, getOutHasColors: () => false });
  cmd.outputHelp();
  return text.trimEnd();
}
