// Runs one slipgate command as a real child process (the CLI `npx slipgate`
// runs) and keeps what it printed, whether it succeeded or not.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SLIPGATE_CLI } from './slipgate-command.js';

const exec = promisify(execFile);

export interface CliResult {
  code: number;
  /** Trimmed. */
  stdout: string;
  stderr: string;
}

/** A runner for commands with `env` on top of this process's (LOG_LEVEL unset unless `env` sets it). */
export function slipgateCli(env: Record<string, string>): (...args: string[]) => Promise<CliResult> {
  return async (...args) => {
    try {
      const { stdout, stderr } = await exec(process.execPath, [...SLIPGATE_CLI, ...args], { env: { ...process.env, ...env } });
      return { code: 0, stdout: stdout.trim(), stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout.trim(), stderr: e.stderr };
    }
  };
}
