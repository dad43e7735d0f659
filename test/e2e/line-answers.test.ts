// What a LINE customer reads for each kind of slip (SQLite, the simulator):
// a slip QR sent as text, the same slip sent again, one the bank does not
// know, one paid to another receiver, and a flood from one customer. Plain words, no internal codes, no secrets in the chat or
// in slipgate's log.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/log.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { bankSimulator, startSimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';
import { counting } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';
import { rigsOfThisFile, sendText } from '../helpers/line.js';
import { slipFor } from '../payments/helpers.js';

const rig = rigsOfThisFile();
const text = sendText;
const OWNER = 'U0000000000000000000000000000fee1';

describe('LINE answers', () => {
  it('verifies a slip QR sent as text; the same slip again from the same customer is answered from the record, free; the bank not knowing a slip yet is said plainly', { timeout: 30_000 }, async () => {
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) }));
    const bank = counting(new SandboxUpstream());
    const r = await rig({ logger, upstream: bank });
    const qrcode = sandboxQr({ amount: 250 });
    await text(r, qrcode);
    await r.answers(1);
    const bankCalls = bank.calls;
    await text(r, `  ${qrcode}\n`);
    await r.answers(2);
    // Not asked of the bank again: the record answers.
    expect(bank.calls).toBe(bankCalls);
    await text(r, sandboxQr({ outcome: 'not-found' }));
    const answers = (await r.answers(3)).map((a) => a.text!);
    expect(answers[0]).toMatch(/^✅ Slip verified: the transfer is real\.\nAmount ฿250\.00\nTime .+\nPaid to .+$/);
    expect(answers[1]).toMatch(/^ℹ️ This slip was received already; its result again: the transfer is real\.\nAmount ฿250\.00\nTime .+\nPaid to .+$/);
    expect(answers[1]!.split('\n').slice(1)).toEqual(answers[0]!.split('\n').slice(1));
    // Kept for re-checks (line-late-bank.test.ts follows it to its end): said plainly, nothing charged.
    expect(answers[2]).toBe('⏳ The bank has not shown this transfer yet. We will check again and tell you in a few minutes.');
    expect(await r.app.store.openRechecks({ accountId: r.accountId, limit: 10 })).toMatchObject([{ keyId: `line:${r.channelId}`, lineChannelId: r.channelId, lineUserId: 'U00000000000000000000000000000001' }]);
    // Verified once (the re-send is free), the unknown slip free.
    expect(await r.credits()).toBe(4);
    expect((await r.app.store.listVerifyTransactions({ accountId: r.accountId, limit: 10 })).items).toHaveLength(1);
    const failures = (await r.app.store.listRequestErrors({ accountId: r.accountId, limit: 10 })).items;
    expect(failures).toMatchObject([{ kind: 'slip_not_found', keyId: `line:${r.channelId}`, lineUserId: 'U00000000000000000000000000000001' }]);
    for (const answer of answers) expect(answer).not.toMatch(/\b10\d\d\b|slip_not_found|upstream|credits/);
    const log = lines.join('');
    expect(log).toContain('"msg":"LINE event"');
    expect(log).toContain('"outcome":"resent"');
    for (const secret of [r.channelSecret, r.accessToken, 'U00000000000000000000000000000001']) expect(log).not.toContain(secret);
  });

  it('says a slip paid another receiver when the account requires registered receivers, free', { timeout: 30_000 }, async () => {
    const r = await rig();
    // The sandbox pays a receiver of its own making, never this one.
    await r.app.admin.addReceiver('admin:test', { accountId: r.accountId, bankCode: '014', account: '987-6-54321-0', nameEn: 'MY SHOP' });
    await r.app.admin.setReceiverPolicy('admin:test', r.accountId, 'require');
    await text(r, sandboxQr({ amount: 10 }));
    const [answer] = await r.answers(1);
    expect(answer!.text).toContain('paid someone else');
    expect(await r.credits()).toBe(5);
  });

  it('limits one customer: beyond the limit one polite answer, then silence, nothing checked; other customers go on', { timeout: 30_000 }, async () => {
    const r = await rig({ env: { LINE_EVENTS_PER_USER_PER_MIN: '2' } });
    for (let i = 0; i < 4; i++) await text(r, sandboxQr({ amount: 1 + i }), 'Uflood000000000000000000000000001');
    await text(r, sandboxQr({ amount: 9 }), 'Ucalm0000000000000000000000000001');
    const answers = await r.answers(4);
    const flood = answers.filter((a) => a.to === 'Uflood000000000000000000000000001').map((a) => a.text);
    // Events are worked off side by side: which two were checked is not fixed, how many is.
    expect(flood).toHaveLength(3);
    expect(flood.filter((t) => t!.includes('Slip verified'))).toHaveLength(2);
    expect(flood.filter((t) => t!.includes('Too many slips'))).toHaveLength(1);
    expect(answers.filter((a) => a.to === 'Ucalm0000000000000000000000000001').map((a) => a.text)).toEqual([expect.stringContaining('Slip verified')]);
    expect(await r.credits()).toBe(2);
  });

  it('a --no-checks channel answers another customer\'s re-send of a verified slip "sent before": no bank call, no credit, the staff told', { timeout: 30_000 }, async () => {
    const bank = await startSimulatedBank({ provider: 'kbank', port: 0 });
    const { id, secret } = bankSimulator('kbank').credentials;
    const UPSTREAMS = JSON.stringify([{ name: 'kbank-sim', provider: 'kbank', baseUrl: bank.url, clientId: id, clientSecret: secret }]);
    try {
      const r = await rig({ checks: false, upstream: null, env: { UPSTREAMS, LINE_STAFF_BATCH_MS: '200' } });
      await r.app.lineChannels.addStaffTarget('admin:test', r.channelId, OWNER);
      const qrcode = slipFor({ amount: 77 });
      await text(r, qrcode, 'U000000000000000000000000000000a1');
      const [first] = await r.answers(1);
      expect(first!.text).toMatch(/^✅ Slip verified/);
      expect(await r.credits()).toBe(4);
      const calls = bank.state.calls.verify;
      expect(calls).toBeGreaterThanOrEqual(1);

      await text(r, qrcode, 'U000000000000000000000000000000b2');
      const answers = await r.answers(2);
      expect(answers[1]).toMatchObject({ kind: 'reply', to: 'U000000000000000000000000000000b2', text: 'ℹ️ This slip was sent before; the shop will check it.' });
      // Answered from the record: the bank was not asked, nothing charged, nothing recorded.
      expect(bank.state.calls.verify).toBe(calls);
      expect(await r.credits()).toBe(4);
      expect((await r.app.store.listVerifyTransactions({ accountId: r.accountId, limit: 10 })).items).toHaveLength(1);
      await eventually(async () => r.sim.log.some((e) => e.kind === 'push' && e.to === OWNER));
      expect(r.sim.log.find((e) => e.kind === 'push' && e.to === OWNER)!.text).toContain('The same slip again');
    } finally {
      await bank.close();
    }
  });
});
