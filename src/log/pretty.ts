// Log lines for a person at a terminal: time, level, message, then the
// fields as key=value, coloured when the terminal takes colour. It formats
// what pino has already serialised, so redaction has happened before this.
import { Writable } from 'node:stream';

const LEVELS: Record<number, { name: string; colour: string }> = {
  10: { name: 'TRACE', colour: '90' },
  20: { name: 'DEBUG', colour: '36' },
  30: { name: 'INFO ', colour: '32' },
  40: { name: 'WARN ', colour: '33' },
  50: { name: 'ERROR', colour: '31' },
  60: { name: 'FATAL', colour: '35' },
};

/** pino's own fields, shown in the line's head or not at all. */
const HIDDEN = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname', 'worker', 'err']);

export interface PrettyOptions {
  colour: boolean;
}

/** Whether to colour for this stream: a terminal, unless NO_COLOR says otherwise (FORCE_COLOR forces it). */
export function wantsColour(stream: NodeJS.WritableStream & { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

export function prettyLine(json: string, { colour }: PrettyOptions): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const paint = (code: string, text: string) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);
  const level = LEVELS[Number(entry.level)] ?? { name: String(entry.level).padEnd(5), colour: '0' };
  const time = typeof entry.time === 'number' ? clock(new Date(entry.time)) : '';
  const worker = entry.worker === undefined ? '' : paint('90', `[worker ${String(entry.worker)}] `);
  const message = typeof entry.msg === 'string' ? entry.msg : '';
  const fields = Object.entries(entry)
    // A value the sentence already says (a URL) is not repeated after it.
    .filter(([k, v]) => !HIDDEN.has(k) && v !== undefined && !(typeof v === 'string' && v.length > 8 && message.includes(v)))
    .map(([k, v]) => `${paint('90', `${k}=`)}${show(v)}`)
    .join(' ');
  let line = `${paint('90', time)} ${paint(level.colour, level.name)} ${worker}${colour ? `\u001b[1m${message}\u001b[22m` : message}`;
  if (fields) line += `  ${fields}`;
  const err = entry.err as { stack?: unknown; message?: unknown } | undefined;
  if (err && typeof err === 'object') {
    const stack = typeof err.stack === 'string' ? err.stack : String(err.message ?? JSON.stringify(err));
    line += `\n${paint('31', stack.replace(/^/gm, '    '))}`;
  }
  return line;
}

function show(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

/** HH:MM:SS.mmm in the machine's local time, as a person at its terminal reads it. */
function clock(at: Date): string {
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}.${pad(at.getMilliseconds(), 3)}`;
}

/** A stream pino writes JSON lines to, passing readable lines on to `out`. */
export function prettyStream(out: NodeJS.WritableStream, options: PrettyOptions): Writable {
  let rest = '';
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      const text = lines.filter(Boolean).map((l) => `${prettyLine(l, options)}\n`).join('');
      if (text) out.write(text);
      done();
    },
  });
}
