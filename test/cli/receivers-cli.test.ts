// `slipgate receivers …` and `accounts update --receiver-policy` as a real
// process against a real store: what a person reads, and every refused input
// exiting non-zero with the reason on stderr, leaving the store as it was.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { namePrintedAs } from '../../src/domain/checks/receiver-rules.js';
import { parseSlipQr, writtenReference } from '../../src/domain/verify/slip-qr.js';
import type { RawParty } from '../../src/domain/types.js';
import { sandboxTransaction } from '../../src/upstream/sandbox/transaction.js';
import { sqliteRow, sqliteRows } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const run = promisify(execFile);

describe('slipgate receivers', () => {
  const dir = tempDir();
  const file = join(dir.path, 'receivers.db');
  afterAll(() => dir.remove());

  const slipgate = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [...SLIPGATE_CLI, ...args], { env: { ...process.env, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' } });
      return { code: 0, stdout: stdout.trim(), stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout.trim(), stderr: e.stderr };
    }
  };
  /** Every receiver row and the account's policy, as SQLite holds them. */
  const stored = (accountId: string) => ({
    receivers: sqliteRows(file, 'SELECT id, number, active FROM receivers WHERE account_id = ? ORDER BY created_at', accountId),
    policy: sqliteRow<{ p: string }>(file, 'SELECT receiver_policy AS p FROM accounts WHERE id = ?', accountId)?.p,
  });

  /** The sandbox's answer to a slip QR, its receiver typed as the sandbox always sends it. */
  const paidTo = (qr: string) => {
    const parsed = parseSlipQr(qr);
    if (!parsed.ok) throw new Error(parsed.reason);
    const tx = sandboxTransaction(parsed.slip.sendingBank, writtenReference(qr, parsed.slip));
    return { ...tx, receiver: tx.receiver as RawParty };
  };

  it('adds, lists for a person and removes receivers; refuses bad input and changes nothing', { timeout: 120_000 }, async () => {
    const { accountId } = JSON.parse((await slipgate('accounts', 'create', '--name', 'ร้านกาแฟ ดีดี', '--json')).stdout) as { accountId: string };
    const id = (await slipgate('receivers', 'add', accountId, '--promptpay', '1-2345-67890-12-1', '--name', 'นาย สมชาย ใจดี', '--label', 'till 2')).stdout;
    expect(id).toMatch(/^rcv_/);
    const before = stored(accountId);
    expect(before).toEqual({ receivers: [{ id, number: '1234567890121', active: 1 }], policy: 'off' });

    const refused: [string[], RegExp][] = [
      [['--bank', '999', '--account', '1234567890', '--name', 'ร้าน'], /unknown bank code "999"/],
      [['--bank', '014', '--account', '12345', '--name', 'ร้าน'], /SCB \(014\) account number has 10 digits, not 5/],
      [['--promptpay', '1234567890122', '--name', 'ร้าน'], /fails its check digit/],
      [['--promptpay', '0812345678', '--name', 'ร้าน\u001b[31m'], /must not contain control characters/],
      [['--bank', '014', '--name', 'ร้าน'], /needs both its bank code and its account number/],
      [['--promptpay', '1-2345-67890-12-1', '--name', 'อีกครั้ง'], new RegExp(`already registered as ${id}`)],
    ];
    for (const [args, why] of refused) {
      const r = await slipgate('receivers', 'add', accountId, ...args);
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.stderr).toMatch(why);
    }
    const policy = await slipgate('accounts', 'update', accountId, '--receiver-policy', 'sometimes');
    expect(policy.code).not.toBe(0);
    expect(policy.stderr).toMatch(/receiver policy must be one of off, report, require/);
    expect((await slipgate('receivers', 'add', 'acc_missing', '--promptpay', '0812345678', '--name', 'ร้าน')).stderr).toMatch(/account not found/);
    expect((await slipgate('receivers', 'remove', 'rcv_missing')).stderr).toMatch(/receiver not found/);
    expect(stored(accountId)).toEqual(before);

    const list = await slipgate('receivers', 'list', accountId);
    expect(list.stdout.split('\n')[0]).toBe('Receiver policy: off');
    expect(list.stdout).toMatch(new RegExp(`${id}\\s+PromptPay NATID 1234567890121\\s+นาย สมชาย ใจดี\\s+till 2\\s+yes`));

    // The sandbox pays the registered PromptPay target, masked as banks print it.
    expect(paidTo((await slipgate('sandbox', 'qr', '--receiver', id)).stdout).receiver).toMatchObject({ displayName: 'นาย สมชาย ใจดี', proxy: { type: 'NATID', value: 'xxxxxxxx9012x' } });
    expect((await slipgate('sandbox', 'qr', '--receiver', 'rcv_missing')).stderr).toMatch(/no receiver rcv_missing/);

    // A name longer than the slip reference can carry is cut, as banks cut them; one given on the command line wins.
    const long = 'บริษัท ร้านกาแฟ ดีดี สาขาสีลม จำกัด (มหาชน)';
    const shop = (await slipgate('receivers', 'add', accountId, '--bank', '014', '--account', '1233131090', '--name', long)).stdout;
    const paidShop = paidTo((await slipgate('sandbox', 'qr', '--receiver', shop)).stdout);
    expect(paidShop.receivingBank).toBe('014');
    expect(paidShop.receiver).toMatchObject({ account: { type: 'BANKAC', value: 'xxx-x-x3109-x' } });
    // Cut only where the receiver rules still read it as the shop's name: the slip must pay the shop.
    const shown = String(paidShop.receiver.displayName);
    expect(long.startsWith(shown)).toBe(true);
    expect(namePrintedAs(shown, long)).toBe(true);
    expect(paidTo((await slipgate('sandbox', 'qr', '--receiver', shop, '--receiver-name', 'DEEDEE')).stdout).receiver).toMatchObject({ displayName: 'DEEDEE' });
    await slipgate('receivers', 'remove', shop);

    const removed = await slipgate('receivers', 'remove', id);
    expect(removed.stdout).toMatch(new RegExp(`Receiver ${id} \\(PromptPay NATID 1234567890121\\) removed from ${accountId}`));
    expect(stored(accountId).receivers).toEqual([]);
  });
});
