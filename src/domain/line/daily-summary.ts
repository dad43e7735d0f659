// The day's summary pushed to a LINE channel's staff targets at
// LINE_SUMMARY_AT (docs/line.md#daily-summary): the account's slips verified
// today (Bangkok) and their baht, the orders those slips paid, the orders
// still open, and the credits left. Read from the records; nothing is written.
import type { LineApi } from '../ports/line-api.js';
import type { Store } from '../ports/store.js';
import type { SecretBox } from '../secret-box.js';
import { bangkokDayStart } from '../bangkok-time.js';
import { baht } from './replies.js';
import type { LineChannel } from './types.js';

/** Records read per page while the day is summed. */
const PAGE = 500;
/** Open orders counted at most (the LINE matcher's own ceiling). */
const MAX_OPEN = 2_000;

export interface DaySummary {
  slips: number;
  baht: number;
  ordersPaid: number;
  ordersOpen: number;
  credits: number;
}

async function summariseDay(store: Store, accountId: string, now: Date): Promise<DaySummary> {
  const from = bangkokDayStart(now);
  let slips = 0;
  let satang = 0;
  let ordersPaid = 0;
  let after: string | null = null;
  do {
    const page = await store.listVerifyTransactions({ accountId, from, to: now, limit: PAGE, after });
    for (const r of page.items) {
      slips++;
      satang += Math.round(r.amount * 100);
      if (r.payment?.status === 'paid') ordersPaid++;
    }
    after = page.next;
  } while (after);
  const [open, account] = await Promise.all([store.pendingPaymentRequests(accountId, MAX_OPEN), store.getAccount(accountId)]);
  return { slips, baht: satang / 100, ordersPaid, ordersOpen: open.length, credits: account?.credits ?? 0 };
}

function summaryText(s: DaySummary, now: Date, lang: LineChannel['lang']): string {
  const th = lang === 'th';
  const day = new Intl.DateTimeFormat(th ? 'th-TH' : 'en-GB', { timeZone: 'Asia/Bangkok', dateStyle: 'medium' }).format(now);
  const open = s.ordersOpen >= MAX_OPEN ? `${MAX_OPEN}+` : String(s.ordersOpen);
  return th
    ? [`🧾 สรุปประจำวัน ${day}`, `สลิปที่ตรวจแล้ว ${s.slips} รายการ ${baht(s.baht)}`, `คำสั่งซื้อที่ชำระแล้ว ${s.ordersPaid}`, `คำสั่งซื้อที่รอชำระ ${open}`, `เครดิตคงเหลือ ${s.credits}`].join('\n')
    : [`🧾 Summary of ${day}`, `Slips verified: ${s.slips}, ${baht(s.baht)}`, `Orders paid: ${s.ordersPaid}`, `Orders open: ${open}`, `Credits left: ${s.credits}`].join('\n');
}

/** Pushes the day's summary of every channel that has staff targets; resolves to how many pushes LINE took. */
export async function sendDailySummaries(deps: { store: Store; secrets: SecretBox; api: LineApi }, now: Date): Promise<number> {
  let sent = 0;
  for (const channel of await deps.store.listLineChannels()) {
    const targets = await deps.store.listLineStaffTargets(channel.channelId);
    if (targets.length === 0) continue;
    const text = summaryText(await summariseDay(deps.store, channel.accountId, now), now, channel.lang);
    const token = deps.secrets.open(channel.sealedToken);
    for (const t of targets) if ((await deps.api.push(token, t.targetId, text)) === 'sent') sent++;
  }
  return sent;
}
