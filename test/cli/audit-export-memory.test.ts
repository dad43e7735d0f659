// `slipgate audit export` streams: exporting 200,000 verifications needs
// about the memory of exporting 10,000. The records are seeded through the
// raw driver; the CLI runs as a real child whose peak RSS it reports itself.
import { execFile } from 'node:child_process';
import { createReadStream, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import {  } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const exec = promisify(execFile);
const MAX_RSS = new URL('../helpers/report-max-rss.mjs', import.meta.url).pathname;
const RECORDS = 200_000;
const START = Date.parse('2026-01-01T00:00:00+07:00');

async function exportTo(databaseUrl: string, out: string, ...args: string[]): Promise<{ maxRssMb: number }> {
  const { stderr } = await exec(process.execPath, ['--import', MAX_RSS, ...SLIPGATE_CLI, 'audit', 'export', '--out', out, ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
    timeout: 600_000,
  });
  const kib = Number(/max-rss-kib=(\d+)/.exec(stderr)?.[1]);
  expect(kib).toBeGreaterThan(0);
  return { maxRssMb: kib / 1024 };
}

async function countLines(file: string): Promise<{ lines: number; last: string }> {
  let lines = 0;
  let last = '';
  for await (const line of createInterface({ input: createReadStream(file) })) {
    lines++;
    last = line;
  }
  return { lines, last };
}

describe('audit export of 200,000 records on SQLite', () => {
  const dir = tempDir();
  const file = join(dir.path, 'big.db');
  const url = `sqlite:${file}`;
  afterAll(() => dir.remove());

  beforeAll(async () => {
    (await openStore(url)).close();
    // A writable handle of its own: many records inserted in one transaction, faster than the store writes them.
    const db = new Database(file);
    const insert = db.prepare(`INSERT INTO verify_transactions
      (id, account_id, key_id, request_id, qrcode, transaction_id, amount, sending_bank, receiving_bank, upstream, latency_ms, response, created_at, source)
      VALUES (?, 'acc_big', 'key_big', ?, ?, ?, ?, '004', '014', 'kbank-1', 120, ?, ?, NULL)`);
    db.transaction(() => {
      for (let i = 0; i < RECORDS; i++) {
        const ref = `0152781214${String(i).padStart(10, '0')}`;
        const response = JSON.stringify({
          amount: 250,
          transactionId: ref,
          senderName: `นาย สมชาย ${i}`,
          senderNameEN: 'MR. SOMCHAI J',
          senderBankAccountNumber: 'xxx-x-x1234-x',
          receiverName: 'บจก. ดีดี',
          receiverNameEN: 'DEEDEE CO',
          receiverBankAccountNumber: '',
          receiverPromptpay: 'x-xxxx-xxxx1-23-4',
          rawData: { transRef: ref, padding: 'x'.repeat(600) },
        });
        insert.run(`vfy_${String(i).padStart(8, '0')}`, `req_${i}`, `QR${ref}`, ref, 250, response, START + i * 1000);
      }
    })();
    db.close();
  }, 300_000);

  it('streams: memory barely grows with 20× the rows', { timeout: 900_000 }, async () => {
    const small = join(dir.path, 'small.csv');
    const big = join(dir.path, 'big.csv');
    // 10,000 records: the first 10,000 seconds.
    const few = await exportTo(url, small, '--to', new Date(START + 10_000 * 1000).toISOString());
    const all = await exportTo(url, big);

    const smallLines = await countLines(small);
    const bigLines = await countLines(big);
    expect(smallLines.lines).toBe(10_001);
    expect(bigLines.lines).toBe(RECORDS + 1);
    // Newest first: the last line is the oldest record, whole.
    expect(bigLines.last).toMatch(/^verified,2026-01-01T00:00:00\.000\+07:00,vfy_00000000,acc_big,.*,250\.00,004,014,นาย สมชาย 0,/);
    // Holding the rows would take hundreds of MB (each record is ~1 KB parsed; the CSV alone is ~50 MB).
    expect(statSync(big).size).toBeGreaterThan(40 * 1024 * 1024);
    expect(all.maxRssMb - few.maxRssMb).toBeLessThan(80);
  });
});
