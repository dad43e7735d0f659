// Secrets given to a command by file or on stdin (`-`), so they never sit in
// shell history or a process listing (`ps` shows every argument). One
// trailing line break is dropped, as `echo` or an editor leaves one.
import { readFileSync } from 'node:fs';
import { InputError } from '../domain/errors.js';

/** A `--x` / `--x-file` pair: exactly one of them. */
export interface SecretSource {
  /** The flag that takes the value itself, e.g. `--channel-secret`. */
  flag: string;
  value: string | undefined;
  /** The path of `--x-file`, or `-` for stdin. */
  file: string | undefined;
}

/** Each source's secret, in order; stdin is read at most once, for one of them. */
export function readSecrets(sources: SecretSource[], stdin: () => string = () => readFileSync(0, 'utf8')): string[] {
  const fromStdin = sources.filter((s) => s.file === '-');
  if (fromStdin.length > 1) throw new InputError(`only one secret can come from stdin (-): ${fromStdin.map((s) => `${s.flag}-file`).join(' and ')} both ask for it`);
  return sources.map(({ flag, value, file }) => {
    if (value !== undefined && file !== undefined) throw new InputError(`give ${flag} or ${flag}-file, not both`);
    if (value !== undefined) return value;
    if (file === undefined) throw new InputError(`${flag} or ${flag}-file is required (${flag}-file - reads it from stdin)`);
    let text: string;
    try {
      text = file === '-' ? stdin() : readFileSync(file, 'utf8');
    } catch (err) {
      throw new InputError(`${flag}-file: cannot read ${file === '-' ? 'stdin' : JSON.stringify(file)} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const secret = text.replace(/(\r?\n)+$/, '');
    if (secret === '') throw new InputError(`${flag}-file: ${file === '-' ? 'stdin' : JSON.stringify(file)} is empty`);
    return secret;
  });
}
