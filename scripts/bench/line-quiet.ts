// Scenario L's quiet chat (#47): what ordinary chat costs a shop whose
// channel keeps quiet (the default): greetings, questions, stickers and
// photos without a slip QR, sent through the LINE platform simulator. Each
// must cost no bank call, no bot message, and no database row but its
// webhook event id (the redelivery guard). The rows are counted per table
// through the raw SQLite driver; the bank calls from slipgate's own metric (a test, from its bank).
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';

const TEXTS = ['สวัสดีค่ะ', 'มีสีแดงไหมคะ', 'ส่งของวันไหนคะ', 'ขอบคุณค่ะ 🙏', 'Do you ship to Chiang Mai?'];
/** How long the events may take to be worked off after the last one is sent. */
const SETTLE_MS = 30_000;

export interface QuietRun {
  sent: number;
  perSecond: number;
  /** Verify calls slipgate made to the bank meanwhile (slipgate_bank_requests_total). */
  bankCalls: number;
  /** Replies and pushes the simulator recorded meanwhile, and the distinct texts of a few. */
  botMessages: number;
  botTexts: string[];
  /** slipgate's CPU seconds (all threads) for the whole batch. */
  cpu: number;
  /** Rows added per table; only tables that changed. */
  rowsAdded: Record<string, number>;
}

export interface QuietTarget {
  simUrl: string;
  /** Verify calls slipgate has made to the bank so far (the bench reads slipgate_bank_requests_total: bankCallsOf). */
  bankCalls(): Promise<number>;
  /** The SQLite file slipgate uses. */
  sqliteFile: string;
  cpuSeconds(): number;
}

/**
 * Sends `count` quiet messages at `perSecond`, each from a customer of its
 * own, and counts what they cost. Paced, as chat is: slipgate answers LINE at
 * once and reads a photo after, so an unpaced burst of photos would fill the
 * account's picture slots and be answered "try later" (a photo might be a
 * slip), which is what overload looks like, not chat.
 */
export async function quietChat(target: QuietTarget, count: number, perSecond = 10): Promise<QuietRun> {
  const photo = await sharp({ create: { width: 900, height: 1200, channels: 3, background: '#c8a27a' } }).jpeg({ quality: 85 }).toBuffer();
  const rowsBefore = countRows(target.sqliteFile);
  const bankBefore = await target.bankCalls();
  const logBefore = (await simLog(target.simUrl)).length;
  const cpuBefore = target.cpuSeconds();
  const started = performance.now();
  const sends: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    await sleep(Math.max(0, started + (i * 1000) / perSecond - performance.now()));
    sends.push(sendQuiet(target.simUrl, i, photo));
  }
  await Promise.all(sends);
  // slipgate answers LINE at once and works the event off after: wait until every event id is stored.
  const deadline = Date.now() + SETTLE_MS;
  while ((countRows(target.sqliteFile).line_events ?? 0) - (rowsBefore.line_events ?? 0) < count && Date.now() < deadline) await sleep(50);
  // …and the work after storing it (the picture's download and read) has finished.
  await sleep(500);
  const rowsAfter = countRows(target.sqliteFile);
  const rowsAdded: Record<string, number> = {};
  for (const [table, n] of Object.entries(rowsAfter)) if (n !== (rowsBefore[table] ?? 0)) rowsAdded[table] = n - (rowsBefore[table] ?? 0);
  const said = (await simLog(target.simUrl)).slice(logBefore).filter((e) => e.kind === 'reply' || e.kind === 'push');
  return {
    sent: count,
    perSecond,
    bankCalls: (await target.bankCalls()) - bankBefore,
    botMessages: said.length,
    botTexts: [...new Set(said.map((e) => (e.text ?? '').slice(0, 80)))].slice(0, 3),
    cpu: target.cpuSeconds() - cpuBefore,
    rowsAdded,
  };
}

/** The `i`th quiet message: text, text, a sticker, a photo without a slip QR, in turn. */
async function sendQuiet(simUrl: string, i: number, photo: Buffer): Promise<void> {
  const user = `U${randomBytes(16).toString('hex')}`;
  const kind = i % 4;
  const path = kind === 2 ? 'send-sticker' : kind === 3 ? 'send-image' : 'send-text';
  const body = kind === 3 ? new Uint8Array(photo) : kind === 2 ? undefined : JSON.stringify({ text: TEXTS[i % TEXTS.length] });
  const res = await fetch(`${simUrl}/sim/${path}?user=${user}`, { method: 'POST', body });
  const sent = (await res.json()) as { slipgate?: { status: number } };
  if (sent.slipgate?.status !== 200) throw new Error(`slipgate answered the quiet message's event ${sent.slipgate?.status ?? res.status}`);
}

/** Rows of every table, read through the raw driver (read-only, beside the running slipgate: WAL). */
function countRows(file: string): Record<string, number> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
    return Object.fromEntries(tables.map(({ name }) => [name, (db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n]));
  } finally {
    db.close();
  }
}

/** slipgate's own count of its bank calls, from the admin listener's metrics. */
export async function bankCallsOf(adminUrl: string): Promise<number> {
  const text = await (await fetch(`${adminUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('slipgate_bank_requests_total'))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

async function simLog(simUrl: string): Promise<{ kind: string; text?: string }[]> {
  return (await (await fetch(`${simUrl}/sim/log`)).json()) as { kind: string; text?: string }[];
}

/** The line the results file gives the batch. */
export function quietLine(q: QuietRun): string {
  const rows = Object.entries(q.rowsAdded).map(([table, n]) => `${table} +${n}`).join(', ') || 'none';
  return `quiet chat (${q.sent} messages at ${q.perSecond}/s: Thai text, stickers, photos without a slip QR): ${q.bankCalls} bank calls, ${q.botMessages} bot messages${q.botTexts.length > 0 ? ` (${q.botTexts.map((t) => `"${t}"`).join(', ')})` : ''}, rows written: ${rows}; ${((q.cpu * 1000) / q.sent).toFixed(2)} ms of slipgate CPU each`;
}
