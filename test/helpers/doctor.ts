// Runs `slipgate doctor --json` as a real process against a database: the
// reconciliation check every fault scenario ends with.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SLIPGATE_CLI } from './slipgate-command.js';

const exec = promisify(execFile);

export interface DoctorReport {
  /** Process exit code: 0 only when every account reconciles. */
  code: number;
  accounts: number;
  discrepancies: { accountId: string; problems: string[] }[];
  openHolds: number;
  stderr: string;
}

export async function runDoctor(databaseUrl: string): Promise<DoctorReport> {
  const env = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' };
  let code = 0;
  let stdout: string;
  let stderr: string;
  try {
    ({ stdout, stderr } = await exec(process.execPath, [...SLIPGATE_CLI, 'doctor', '--json'], { env, timeout: 30_000 }));
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    ({ code, stdout, stderr } = e);
  }
  let parsed: Omit<DoctorReport, 'code' | 'stderr'> = { accounts: 0, discrepancies: [], openHolds: -1 };
  try {
    parsed = JSON.parse(stdout) as typeof parsed;
  } catch {
    // doctor failed before printing (e.g. the store was unreachable); the code says so.
  }
  return { code, stderr, ...parsed };
}
