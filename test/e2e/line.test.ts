// The LINE bridge end to end on every engine: the simulator plays a
// customer who sends a slip picture in the chat; slipgate downloads it from
// the data API, reads the QR, verifies it on the channel's account and
// answers in the chat; one charge, one audit record naming the channel and
// the LINE user, the loading animation shown, metrics by outcome.
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { testEngines } from '../helpers/engines.js';
import { startLineRig, type LineRig } from '../helpers/line.js';
import { scrape } from '../metrics/scrape.js';

describe.each(testEngines())('LINE bridge on %s', (engine) => {
  const rigs: LineRig[] = [];
  afterAll(async () => {
    for (const rig of rigs) await rig.stop().catch(() => {});
    await engine.dispose();
  });

  it('answers a slip picture sent in the chat: verified, charged once, recorded with the channel and the LINE user', { timeout: 60_000 }, async () => {
    const rig = await startLineRig({ databaseUrl: await engine.databaseUrl(), lang: 'th' });
    rigs.push(rig);
    const sent = await rig.control(`/sim/send-image?user=U1234567890abcdef1234567890abcdef&qrcode=${encodeURIComponent(sandboxQr({ amount: 1234.5 }))}`);
    expect(sent.slipgate).toEqual({ status: 200, body: '{}' });

    const [answer] = await rig.answers(1);
    expect(answer).toMatchObject({ kind: 'reply', to: 'U1234567890abcdef1234567890abcdef', replyToken: sent.replyToken });
    expect(answer!.text).toContain('ตรวจสอบสลิปแล้ว');
    expect(answer!.text).toContain('฿1,234.50');
    expect(rig.sim.log.filter((e) => e.kind === 'loading').map((e) => e.to)).toEqual(['U1234567890abcdef1234567890abcdef']);
    expect(rig.sim.contentRequests).toEqual([sent.messageId]);
    expect(await rig.credits()).toBe(4);

    const records = (await rig.app.store.listVerifyTransactions({ accountId: rig.accountId, limit: 10 })).items;
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ source: 'line', keyId: `line:${rig.channelId}`, lineUserId: 'U1234567890abcdef1234567890abcdef', requestId: sent.webhookEventId, amount: 1234.5 });
    expect((await scrape(rig.app.adminUrl)).value('slipgate_line_events_total', { outcome: 'verified' })).toBe(1);
  });
});
