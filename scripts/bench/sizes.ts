// Bytes on disk per verification, per storage engine: writes N verifications
// through the store (hold + settle, as the verify path does, with a bank
// payload of the usual size) into a fresh database and measures what the
// database grew by. `npx tsx scripts/bench/sizes.ts [--count 20000] [--engine sqlite,postgres,mongodb]`
// writes bench/results/<date>-sizes.md.
//
// Measured: SQLite the file (after a checkpoint), PostgreSQL the sum of
// pg_total_relation_size (tables, indexes, TOAST) of slipgate's tables,
// MongoDB dbStats storageSize + indexSize. Then every record is redacted as
// retention does after RETENTION_DAYS (removePersonalData), the space given
// back (SQLite VACUUM, PostgreSQL VACUUM FULL; MongoDB keeps its files), and
// measured again: what a verification weighs for the years after the period.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { newId } from '../../src/domain/keys/api-key.js';
import type { Store } from '../../src/domain/ports/store.js';
import type { VerifiedSlip, VerifyTransactionRecord } from '../../src/domain/types.js';
import { openStore } from '../../src/store/open.js';
import { removePersonalData } from '../../src/domain/personal-data/retention.js';
import Database from 'better-sqlite3';
import { ENGINE_NAMES, type EngineName } from './args.js';
import { treeState, untiedReason } from './build.js';
import { createDatabase, type BenchDatabase } from './engines.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function parse(argv: string[]): { count: number; engines: EngineName[]; allowDirty: boolean } {
  let count = 20_000;
  let engines: EngineName[] = [...ENGINE_NAMES];
  let allowDirty = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--count') count = Number(argv[++i]);
    else if (argv[i] === '--engine') engines = argv[++i]!.split(',') as EngineName[];
    else if (argv[i] === '--allow-dirty') allowDirty = true;
    else throw new Error(`usage: tsx scripts/bench/sizes.ts [--count N] [--engine ${ENGINE_NAMES.join(',')}] [--allow-dirty]`);
  }
  if (!Number.isSafeInteger(count) || count < 100) throw new Error('--count must be a whole number ≥ 100');
  if (!engines.every((e) => (ENGINE_NAMES as readonly string[]).includes(e))) throw new Error(`--engine takes ${ENGINE_NAMES.join(',')}`);
  return { count, engines, allowDirty };
}

/** A success record shaped like a real KBank answer (names, masked accounts, the raw payload). */
function record(accountId: string, i: number): VerifyTransactionRecord {
  const ref = `01527812142${String(i).padStart(9, '0')}`;
  const sender = { displayName: 'นาย สมชาย ใ', name: 'MR. SOMCHAI J', proxy: '', account: { type: 'BANKAC', value: 'xxx-x-x1234-x' } };
  const receiver = { displayName: 'บจก. ร้านกาแฟ ดีดี', name: 'DEEDEE COFFEE CO., LTD.', proxy: { type: 'NATID', value: 'x-xxxx-xxxx1-23-4' }, account: { type: 'BANKAC', value: 'xxx-x-x8768-x' } };
  const rawData = { language: 'TH', transRef: ref, sendingBank: '004', receivingBank: '014', transDate: '20261125', transTime: '14:03:07', sender, receiver, amount: '250.00', paidLocalAmount: '250.00', paidLocalCurrency: '764', countryCode: 'TH', ref1: '', ref2: '', ref3: '' };
  const response: VerifiedSlip = {
    amount: 250,
    dateTime: '2026-11-25T14:03:07+07:00',
    timestamp: 1795590187,
    transactionId: ref,
    senderBankAccountNumber: 'xxx-x-x1234-x',
    senderName: sender.displayName,
    senderNameEN: sender.name,
    senderBank: 'KBANK',
    senderBankCode: '004',
    receiverBankAccountNumber: 'xxx-x-x8768-x',
    receiverName: receiver.displayName,
    receiverNameEN: receiver.name,
    receiverBank: 'SCB',
    receiverBankCode: '014',
    receiverPromptpay: 'x-xxxx-xxxx1-23-4',
    receiverProxyType: 'NATID',
    rawData,
  };
  return {
    id: newId('req'),
    accountId,
    keyId: 'key_size',
    requestId: newId('req'),
    qrcode: `004100060000010103004022${ref}5102TH9104ABCD`,
    transactionId: ref,
    amount: 250,
    sendingBank: '004',
    receivingBank: '014',
    upstream: 'kbank-1',
    latencyMs: 180,
    response,
    createdAt: new Date(),
  };
}

async function bytesUsed(db: BenchDatabase, file: string | null, compact = false): Promise<number> {
  if (db.engine === 'sqlite') {
    if (compact) {
      const lite = new Database(file!);
      lite.exec('VACUUM');
      lite.close();
    }
    return statSync(file!).size;
  }
  if (db.engine === 'postgres') {
    const url = new URL(db.url);
    url.searchParams.delete('pool_max');
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      await client.query(compact ? 'VACUUM FULL ANALYZE' : 'VACUUM ANALYZE');
      const { rows } = await client.query<{ n: string }>(
        "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = 'public' AND c.relkind = 'r'",
      );
      return Number(rows[0]!.n);
    } finally {
      await client.end();
    }
  }
  const { default: mongoose } = await import('mongoose');
  const conn = await mongoose.createConnection(db.url).asPromise();
  try {
    const stats = (await conn.db!.command({ dbStats: 1 })) as { storageSize: number; indexSize: number };
    return stats.storageSize + stats.indexSize;
  } finally {
    await conn.close();
  }
}

/** `parallel` 1 for the FerretDB stand-in, whose updates of one document are not atomic. */
async function write(store: Store, accountId: string, count: number, parallel: number): Promise<void> {
  const PARALLEL = parallel;
  for (let done = 0; done < count; done += PARALLEL) {
    await Promise.all(
      Array.from({ length: Math.min(PARALLEL, count - done) }, async (_, j) => {
        const r = record(accountId, done + j);
        const held = await store.holdCredit({ id: r.id, accountId, keyId: r.keyId, createdAt: r.createdAt, instanceId: null });
        if (held.status !== 'held') throw new Error(`hold failed: ${held.status}`);
        await store.settleHold(r);
      }),
    );
  }
}

interface Measured {
  engine: EngineName;
  description: string;
  count: number;
  bytesPerVerification: number;
  /** Once every record is redacted (retention) and the space given back. */
  bytesAfterRetention: number;
}

async function measure(db: BenchDatabase, count: number): Promise<Measured> {
  const file = db.engine === 'sqlite' ? db.url.slice('sqlite:'.length) : null;
  let store = await openStore(db.url);
  const account = await store.createAccount({ id: newId('acc'), name: 'Size shop', createdAt: new Date() });
  await store.applyLedgerEntry({ id: newId('led'), accountId: account.id, kind: 'initial', delta: count, reason: 'size bench', actor: 'bench', idempotencyKey: null, createdAt: new Date() });
  await store.close();
  const empty = await bytesUsed(db, file);
  store = await openStore(db.url);
  await write(store, account.id, count, db.engine === 'mongodb' && !process.env.MONGODB_URI ? 1 : 16);
  await store.close(); // SQLite: checkpoints the WAL into the file
  const full = await bytesUsed(db, file);
  store = await openStore(db.url);
  const { redacted } = await removePersonalData(store, { createdBefore: new Date(Date.now() + 60_000) }, { now: new Date() });
  await store.close();
  if (redacted !== count) throw new Error(`retention redacted ${redacted} of ${count} records`);
  const after = await bytesUsed(db, file, true);
  return { engine: db.engine, description: db.description, count, bytesPerVerification: (full - empty) / count, bytesAfterRetention: (after - empty) / count };
}

const { count, engines, allowDirty } = parse(process.argv.slice(2));
// Like the bench: figures name the commit they measured, or say they describe none.
const tree = treeState(root);
const untied = untiedReason(tree);
if (untied && !allowDirty) {
  process.stderr.write(`sizes: refusing to run: ${untied}. Commit first, or pass --allow-dirty (the results file will say so).\n`);
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), 'slipgate-sizes-'));
const lines: string[] = [];
try {
  for (const engine of engines) {
    const setup = await createDatabase(engine, work, root);
    if (!setup.ok) {
      lines.push(`| ${engine} | skipped: ${setup.reason} | | | | |`);
      continue;
    }
    try {
      process.stderr.write(`${engine}: writing ${count} verifications…\n`);
      const m = await measure(setup.db, count);
      const perMillionGb = (bytes: number) => `${((bytes * 1e6) / 1e9).toFixed(2)} GB`;
      lines.push(
        `| ${engine} | ${m.bytesPerVerification.toFixed(0)} B | ${perMillionGb(m.bytesPerVerification)} | ${m.bytesAfterRetention.toFixed(0)} B | ${perMillionGb(m.bytesAfterRetention)} | ${m.description} |`,
      );
    } catch (err) {
      lines.push(`| ${engine} | failed: ${err instanceof Error ? err.message : String(err)} | | | | |`);
    } finally {
      await setup.db.drop();
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const day = new Date().toISOString().slice(0, 10);
const report = [
  `# Bytes on disk per verification (${day}, ${hostname()})`,
  '',
  untied ? `Revision measured: \`${tree.commit ?? 'unknown'}\` **plus uncommitted changes** (--allow-dirty: ${untied}).` : `Revision measured: \`${tree.commit}\` (clean tree).`,
  '',
  `${count} successful verifications per engine written through the store (hold + settle), each with a bank payload of the usual size (Thai and English names, masked accounts, the raw answer: ~1.2 KB of JSON). Growth of the database from empty; no failed requests. "After retention": every record redacted as RETENTION_DAYS does (names, accounts, the raw answer and QR text beyond the reference gone), then the space given back (SQLite VACUUM, PostgreSQL VACUUM FULL; MongoDB keeps its files, so its figure does not fall).`,
  '',
  '| engine | bytes per verification | growth per million | after retention, per verification | after retention, per million | database |',
  '|---|--:|--:|--:|--:|---|',
  ...lines,
  '',
].join('\n');
const out = join(root, 'bench', 'results', `${day}-sizes.md`);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, report);
process.stdout.write(`${report}\nwritten to ${out}\n`);
