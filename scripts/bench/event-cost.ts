// What one webhook event costs the event loop that answers verifications,
// on SQLite, without HTTP, the bank or the load generator around it: A+hooks
// measures the same thing through a saturated server, where it shows only as
// fewer answers a second, and two runs of it differ by more than the 10% at
// stake. Here the loop's own CPU time (this thread's, /proc/thread-self/stat)
// is read around N verifications' store work, 100 at a time, in rounds that
// alternate between:
//
//   plain       hold + settle, no endpoint listening;
//   event       the same with one event, as the server does it: written
//               leased to the worker, dispatched, signed and sent by the
//               sending thread to a receiver process, its attempt recorded;
//   row only    the event's row written, nothing sent (no worker);
//   no listing  as `row only`, in a database without the two indexes that
//               list deliveries by account and by endpoint: their share.
//
// `npx tsx scripts/bench/event-cost.ts [--count 5000] [--rounds 6]` writes
// bench/results/<date>-event-cost-<revision>.md. Linux only.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { storeServices } from '../../src/compose-store.js';
import type { Store } from '../../src/domain/ports/store.js';
import type { VerifyTransactionRecord } from '../../src/domain/types.js';
import { leased, outboxRecords, verificationSucceeded } from '../../src/domain/webhooks/events.js';
import { WebhookWorker } from '../../src/domain/webhooks/worker.js';
import { createLogger } from '../../src/log/log.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { ThreadWebhookSender } from '../../src/webhooks/sender-thread.js';
import { treeState, untiedReason } from './build.js';
import { deliveriesReach, startDeliveryReceiver, type DeliveryReceiver } from './webhooks.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ACCOUNTS = 32;
const AT_ONCE = 100;
const LISTING_INDEXES = ['webhook_deliveries_account_time', 'webhook_deliveries_endpoint_time'];
const MODES = ['plain', 'event', 'row only', 'no listing'] as const;
type Mode = (typeof MODES)[number];

function parse(argv: string[]): { count: number; rounds: number; allowDirty: boolean } {
  const o = { count: 5_000, rounds: 6, allowDirty: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--count') o.count = Number(argv[++i]);
    else if (argv[i] === '--rounds') o.rounds = Number(argv[++i]);
    else if (argv[i] === '--allow-dirty') o.allowDirty = true;
    else throw new Error('usage: tsx scripts/bench/event-cost.ts [--count N] [--rounds N] [--allow-dirty]');
  }
  if (!Number.isSafeInteger(o.count) || o.count < 500) throw new Error('--count must be a whole number ≥ 500');
  if (!Number.isSafeInteger(o.rounds) || o.rounds < 1) throw new Error('--rounds must be a whole number ≥ 1');
  return o;
}

/** This thread's user + system CPU, ms (clock ticks of 10 ms). */
function loopCpuMs(): number {
  const stat = readFileSync('/proc/thread-self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Shop {
  store: Store;
  accounts: { id: string; endpointId: string }[];
}

/** A fresh database with ACCOUNTS accounts, each with an endpoint at `receiver`; `dropListing` removes the listing indexes first. */
async function shop(dir: string, name: string, receiver: DeliveryReceiver, dropListing = false): Promise<Shop> {
  const file = join(dir, `${name}.db`);
  await new SqliteStore(file).close();
  if (dropListing) {
    const raw = new Database(file);
    for (const index of LISTING_INDEXES) raw.exec(`DROP INDEX ${index}`);
    raw.close();
  }
  const store = new SqliteStore(file);
  // The receiver listens on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE=true).
  const services = storeServices(store, { allowPrivateWebhooks: true });
  const accounts: Shop['accounts'] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    const { account } = await services.accounts.createAccount({ name: `Event cost ${i}`, credits: 10_000_000, actor: 'bench' });
    const { endpoint, secret } = await services.webhooks.add('bench', account.id, { url: receiver.urlFor(account.id) });
    await receiver.addSecret(account.id, secret);
    accounts.push({ id: account.id, endpointId: endpoint.id });
  }
  return { store, accounts };
}

let n = 0;
/** One verification's store work, as the verify path does it after the bank answered. */
async function verification(on: Shop, withEvent: boolean, worker?: WebhookWorker): Promise<void> {
  const a = on.accounts[n++ % on.accounts.length]!;
  const id = `req_cost_${n}`;
  await on.store.holdCredit({ id, accountId: a.id, keyId: 'key_bench', createdAt: new Date(), instanceId: null });
  const record: VerifyTransactionRecord = {
    id, accountId: a.id, keyId: 'key_bench', requestId: id, qrcode: `0041000600000101030040220${String(n).padStart(15, '0')}5102TH9104ABCD`,
    transactionId: `0152781214${String(n).padStart(10, '0')}`, amount: 250, sendingBank: '004', receivingBank: '014', upstream: 'sandbox', latencyMs: 3,
    response: { transactionId: `tx${n}`, amount: 250 } as never, createdAt: new Date(),
  };
  if (!withEvent) return void (await on.store.settleHold(record));
  const deliveries = leased(outboxRecords(verificationSucceeded(record), a.id, [a.endpointId]), worker?.lease());
  await on.store.settleHold(record, deliveries);
  worker?.dispatch(deliveries);
}

async function round(mode: Mode, count: number, shops: Record<'served' | 'rows' | 'bare', Shop>, worker: WebhookWorker, receiver: DeliveryReceiver): Promise<number> {
  const on = mode === 'no listing' ? shops.bare : mode === 'row only' ? shops.rows : shops.served;
  const deliveredBefore = receiver.delivered;
  const started = loopCpuMs();
  let left = count;
  await Promise.all(Array.from({ length: AT_ONCE }, async () => {
    while (left-- > 0) await verification(on, mode !== 'plain', mode === 'event' ? worker : undefined);
  }));
  if (mode === 'event') {
    await deliveriesReach(receiver, deliveredBefore + count);
    // The last attempts' records (they ride with the next batch, or commit alone after 20 ms).
    await new Promise((r) => setTimeout(r, 100));
  }
  return ((loopCpuMs() - started) * 1000) / count;
}

const { count, rounds, allowDirty } = parse(process.argv.slice(2));
if (process.platform !== 'linux') throw new Error('event-cost reads /proc/thread-self/stat: Linux only');
const tree = treeState(root);
const untied = untiedReason(tree);
if (untied && !allowDirty) {
  process.stderr.write(`event-cost: refusing to run: ${untied}. Commit first, or pass --allow-dirty (the results file will say so).\n`);
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), 'slipgate-event-cost-'));
const receiver = await startDeliveryReceiver();
const sender = new ThreadWebhookSender({ userAgent: 'slipgate-bench', guard: { adminPort: null, allowPrivate: true } });
const samples = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
try {
  const shops = { served: await shop(work, 'served', receiver), rows: await shop(work, 'rows', receiver), bare: await shop(work, 'bare', receiver, true) };
  const worker = new WebhookWorker({
    store: shops.served.store, sender, secrets: storeServices(shops.served.store).secrets,
    retry: { baseMs: 30_000, maxDelayMs: 60_000, windowMs: 86_400_000 }, timeoutMs: 10_000, leaseMs: 60_000, pollMs: 1_000, batch: 128,
    logger: createLogger('silent'),
  });
  worker.start();
  try {
    // A warm-up of each mode, not counted: the JIT, the caches, the thread.
    for (const mode of MODES) await round(mode, Math.min(count, 2_000), shops, worker, receiver);
    for (let r = 1; r <= rounds; r++) {
      const order = r % 2 === 1 ? MODES : [...MODES].reverse();
      for (const mode of order) samples.get(mode)!.push(await round(mode, count, shops, worker, receiver));
      process.stderr.write(`round ${r}: ${order.map((m) => `${m} ${samples.get(m)!.at(-1)!.toFixed(0)} µs`).join(', ')}\n`);
    }
  } finally {
    await worker.stop();
    for (const s of Object.values(shops)) await s.store.close();
  }
} finally {
  await sender.close();
  await receiver.close();
  rmSync(work, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const plain = median(samples.get('plain')!);
const rows = MODES.map((m) => {
  const med = median(samples.get(m)!);
  return `| ${m} | ${med.toFixed(0)} | ${m === 'plain' ? '–' : `+${(med - plain).toFixed(0)}`} | ${samples.get(m)!.map((x) => x.toFixed(0)).join(', ')} |`;
});
const day = new Date().toISOString().slice(0, 10);
const short = (tree.commit ?? 'unknown').slice(0, 7);
const report = [
  `# The event loop's CPU per webhook event, on SQLite (${day}, ${hostname()})`,
  '',
  untied ? `Revision measured: \`${tree.commit ?? 'unknown'}\` **plus uncommitted changes** (--allow-dirty: ${untied}).` : `Revision measured: \`${tree.commit}\` (clean tree).`,
  '',
  `Command: \`npx tsx scripts/bench/event-cost.ts --count ${count} --rounds ${rounds}\`. ${count.toLocaleString('en-US')} verifications per round and mode, ${AT_ONCE} at a time, over ${ACCOUNTS} accounts with an endpoint each; ${rounds} rounds, the modes taking turns going first. Figures: this process's event-loop thread's CPU (user + system, 10 ms ticks) per verification, µs; the sending thread and the receiver process not counted. See the script's header for the modes.`,
  '',
  '| mode | median µs per verification | against plain | rounds |',
  '|---|--:|--:|---|',
  ...rows,
  '',
].join('\n');
const out = join(root, 'bench', 'results', `${day}-event-cost-${short}.md`);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, report);
process.stdout.write(`${report}\nwritten to ${out}\n`);
