// `slipgate audit export` on every engine: the same rows, Thai names intact,
// amounts as decimal text, Bangkok times, filters, and clear errors.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/domain/ports/store.js';
import type { VerifiedSlip, VerifyTransactionRecord } from '../../src/domain/types.js';
import { openStore } from '../../src/store/open.js';
import { testEngines } from '../helpers/engines.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const exec = promisify(execFile);

async function slipgate(databaseUrl: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [...SLIPGATE_CLI, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }, timeout: 60_000 });
    return { code: 0, stdout, stderr: withoutDatabaseLine(stderr) };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: withoutDatabaseLine(e.stderr) };
  }
}

const at = (bangkok: string) => new Date(`${bangkok}+07:00`);

async function seed(store: Store) {
  const account = async (name: string) => {
    const a = await store.createAccount({ id: `acc_${randomUUID()}`, name, createdAt: new Date() });
    await store.applyLedgerEntry({ id: `led_${randomUUID()}`, accountId: a.id, kind: 'initial', delta: 10, reason: 'test', actor: 'test', idempotencyKey: null, createdAt: new Date() });
    return a.id;
  };
  const shop = await account('ร้านกาแฟ ดีดี');
  const other = await account('Other shop');
  const verified = async (accountId: string, createdAt: Date, amount: number, senderName: string, transactionId: string, payment?: VerifyTransactionRecord['payment']) => {
    const id = `vfy_${randomUUID()}`;
    await store.holdCredit({ id, accountId, keyId: 'key_x', createdAt, instanceId: null });
    const response = {
      amount,
      transactionId,
      senderName,
      senderNameEN: 'MR. SOMCHAI J',
      senderBankAccountNumber: 'xxx-x-x1234-x',
      receiverName: 'บจก. ดีดี',
      receiverNameEN: 'DEEDEE CO',
      receiverBankAccountNumber: '',
      receiverPromptpay: 'x-xxxx-xxxx1-23-4',
      rawData: {},
    } as unknown as VerifiedSlip;
    await store.settleHold({ id, accountId, keyId: 'key_x', requestId: `req_${transactionId}`, qrcode: 'QR', transactionId, amount, sendingBank: '004', receivingBank: '014', upstream: 'kbank-1', latencyMs: 42, response, createdAt, ...(payment ? { payment } : {}) });
  };
  await verified(shop, at('2026-11-01T00:00:00.000'), 250, 'นาย สมชาย ใ', 'TX-NOV-01');
  await verified(shop, at('2026-11-15T12:30:00.000'), 100.5, 'นาง "สมศรี", มีสุข', 'TX-NOV-15', { requestId: 'pr_late', status: 'expired', reason: 'expired' });
  await verified(shop, at('2026-11-30T23:59:59.000'), 1234567.89, '=HYPERLINK("http://x")', 'TX-NOV-30');
  await verified(shop, at('2026-12-01T00:00:00.000'), 7, 'นาย ธันวา', 'TX-DEC-01');
  await verified(other, at('2026-11-10T09:00:00.000'), 99, 'นาย อื่น', 'TX-OTHER');
  await store.insertRequestError({ id: `err_${randomUUID()}`, accountId: shop, keyId: 'key_x', requestId: 'req_fail', qrcode: 'QR', transactionId: 'TX-FAIL', sendingBank: '004', kind: 'slip_not_found', message: 'slip not found', upstream: 'kbank-1', latencyMs: 30, createdAt: at('2026-11-20T08:00:00.000') });
  return { shop, other };
}

describe.each(testEngines())('audit export on %s', (engine) => {
  const dir = tempDir();
  afterAll(async () => {
    dir.remove();
    await engine.dispose();
  });
  let url = '';
  let ids = { shop: '', other: '' };

  it('exports one account\'s November as JSON lines: amounts as text, Bangkok times, newest first, both record types', { timeout: 120_000 }, async () => {
    url = await engine.databaseUrl();
    const store = await openStore(url);
    try {
      ids = await seed(store);
    } finally {
      await store.close();
    }
    const r = await slipgate(url, 'audit', 'export', '--account', ids.shop, '--from', '2026-11-01', '--to', '2026-11-30', '--format', 'jsonl');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);
    expect(rows.map((x) => [x.record, x.time, x.transaction_id, x.amount, x.sender_name])).toEqual([
      ['verified', '2026-11-30T23:59:59.000+07:00', 'TX-NOV-30', '1234567.89', '=HYPERLINK("http://x")'],
      ['failed', '2026-11-20T08:00:00.000+07:00', 'TX-FAIL', '', ''],
      ['verified', '2026-11-15T12:30:00.000+07:00', 'TX-NOV-15', '100.50', 'นาง "สมศรี", มีสุข'],
      ['verified', '2026-11-01T00:00:00.000+07:00', 'TX-NOV-01', '250.00', 'นาย สมชาย ใ'],
    ]);
    expect(rows[1]).toMatchObject({ error_kind: 'slip_not_found', error_message: 'slip not found', account_id: ids.shop });
    expect(rows[3]).toMatchObject({ receiver_name: 'บจก. ดีดี', sender_account: 'xxx-x-x1234-x', receiving_bank: '014', upstream: 'kbank-1', latency_ms: '42', source: 'qrcode' });
  });

  it('writes CSV to a file, owner-only: UTF-8 with a BOM, Thai intact, quoted where needed, formulas defused', { timeout: 60_000 }, async () => {
    // The other shop's personal data is erased: its row says when, so an empty name reads as erased, not missing.
    expect((await slipgate(url, 'accounts', 'erase-personal-data', ids.other, '--yes')).code).toBe(0);
    const out = join(dir.path, `${engine.name}.csv`);
    const r = await slipgate(url, 'audit', 'export', '--kind', 'verified', '--from', '2026-11-01T00:00:00+07:00', '--to', '2026-12-01T00:00:00+07:00', '--out', out);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    // Names and account numbers: readable by its owner only, whatever the umask.
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const bytes = readFileSync(out);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = bytes.toString('utf8').slice(1).split('\r\n');
    expect(lines[0]!.split(',').slice(0, 8)).toEqual(['record', 'time', 'id', 'account_id', 'key_id', 'request_id', 'transaction_id', 'amount']);
    expect(lines.filter((l) => l.startsWith('verified,'))).toHaveLength(4);
    expect(lines.find((l) => l.includes('TX-NOV-15'))).toContain(',100.50,004,014,"นาง ""สมศรี"", มีสุข",MR. SOMCHAI J,');
    expect(lines.find((l) => l.includes('TX-NOV-30'))).toContain(`,1234567.89,004,014,"'=HYPERLINK(""http://x"")",`);
    expect(lines.find((l) => l.includes('TX-OTHER'))).toContain(`,${ids.other},`);
    // Columns are only ever added at the end: the payment verdict's three after redacted_at.
    expect(lines[0]!.split(',').slice(-4)).toEqual(['redacted_at', 'payment_request_id', 'payment_status', 'payment_reason']);
    expect(lines.find((l) => l.includes('TX-OTHER'))!.split(',').at(-4)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+07:00$/);
    expect(lines.find((l) => l.includes('TX-OTHER'))).not.toContain('นาย อื่น');
    expect(lines.find((l) => l.includes('TX-NOV-01'))!.split(',').slice(-4)).toEqual(['', '', '', '']);
    // The payment verdict kept with a verification sent for a payment request.
    expect(lines.find((l) => l.includes('TX-NOV-15'))!.split(',').slice(-3)).toEqual(['pr_late', 'expired', 'expired']);
    expect(lines.some((l) => l.includes('TX-DEC-01') || l.startsWith('failed,'))).toBe(false);
  });

  it('refuses an unknown account and an inverted range, exit 2', { timeout: 60_000 }, async () => {
    const unknown = await slipgate(url, 'audit', 'export', '--account', 'acc_nobody');
    expect(unknown).toMatchObject({ code: 2, stdout: '', stderr: 'slipgate: unknown account acc_nobody\n' });
    const inverted = await slipgate(url, 'audit', 'export', '--from', '2026-12-01', '--to', '2026-11-01');
    expect(inverted.code).toBe(2);
    expect(inverted.stdout).toBe('');
    expect(inverted.stderr).toMatch(/^slipgate: the time range is inverted or empty: from 2026-12-01T00:00:00\.000\+07:00 is not before to 2026-11-02T00:00:00\.000\+07:00\n$/);
  });
});

/** Every command that opens the store names it first on stderr (test/cli/store-choice.test.ts checks that line); the rest is this command's. */
function withoutDatabaseLine(stderr: string): string {
  return stderr.replace(/^slipgate: using database [^\n]*\n/, '');
}
