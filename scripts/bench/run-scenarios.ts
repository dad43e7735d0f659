// The scenarios a bench run chose, in the order and rounds its flags ask
// for: each engine in turn, --repeat's alternated rounds (with --against),
// scenario I's rounds, and scenario H against a long stored history.
import { performance } from 'node:perf_hooks';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { openStore } from '../../src/store/open.js';
import type { EngineName } from './args.js';
import type { BuiltApp } from './build.js';
import { createDatabase } from './engines.js';
import { databaseBytes, historySupported, lookupMs, seedHistory } from './history.js';
import { FLOOD_ENV, measureFlood } from './flood.js';
import { measure, measureImages, startBank, startSlipgate } from './phases.js';
import { summariseProfiles } from './profile.js';
import { aVariants } from './extras.js';
import { measureDrain } from './drain.js';
import { chosen, type BenchRun } from './run.js';
import { CREDITS_PER_ACCOUNT, onSeededDatabase, onSeededDatabases, reconcile, revisionSeeder } from './seeding.js';
import type { BenchDatabase } from './engines.js';

export async function benchEngine(run: BenchRun, app: BuiltApp, engine: EngineName): Promise<void> {
  await onSeededDatabase(run, engine, async (db, keys) => {
    for (const id of ['A', 'B', 'C'] as const) {
      if (chosen(run, id)) run.report.rows.push(await measure(run, app, run.scenarios[id], engine, db, keys));
    }
    if (chosen(run, 'A')) for (const variant of aVariants(run)) run.report.rows.push(await measure(run, app, variant, engine, db, keys));
    if (chosen(run, 'A') && run.args.webhooks) run.report.drains.push(await measureDrain(run, app, engine, db, keys));
    if (chosen(run, 'I')) run.report.pictures.push(await measureImages(run, app, run.scenarios.I, engine, db, keys, 1));
    if (run.args.profile) {
      const dir = join(run.work, `profile-${engine}`);
      mkdirSync(dir);
      run.report.rows.push(await measure(run, app, run.scenarios.A, engine, db, keys, dir));
      run.report.profiles[engine] = summariseProfiles(dir, app.dir);
    }
  });
}

/**
 * --repeat N: D and A alternately, N rounds, on one database per engine (and
 * one more per engine for the --against revision, made by its code); the
 * report gives medians. With several engines, A runs on each of them in every
 * round, the engines taking turns going first, so their ratio is measured
 * within one round on one machine. With --receiver-policy, --payments or
 * --webhooks, A's variants run beside A in every round, taking turns going
 * first; with --webhooks, W then drains its backlog once a round.
 */
export async function repeatAD(run: BenchRun, app: BuiltApp, engines: EngineName[], other?: BuiltApp & { revision: string }): Promise<void> {
  // --against: the other revision on databases of its own, made by its own code (its schema may be older).
  const otherSeeder = other && (await revisionSeeder(other.dir, other.revision));
  const withOthers = (body: (theirs: Map<EngineName, { db: BenchDatabase; keys: string[] }>) => Promise<void>) =>
    otherSeeder ? onSeededDatabases(run, engines, (seeded) => body(new Map(seeded.map((s) => [s.engine, s]))), otherSeeder) : body(new Map());
  await withOthers((theirs) =>
    onSeededDatabases(run, engines, async (seeded) => {
      for (let round = 1; round <= run.args.repeat; round++) {
        run.report.rows.push({ ...(await measure(run, app, run.scenarios.D, 'none', null, [])), round });
        const turn = (round - 1) % seeded.length;
        for (const { engine, db, keys } of [...seeded.slice(turn), ...seeded.slice(0, turn)]) {
          // Odd rounds: A, then its variants; even rounds: the variants in reverse, then A.
          const order = [run.scenarios.A, ...aVariants(run)];
          const thisTree = async () => {
            for (const scenario of round % 2 === 1 ? order : order.reverse()) run.report.rows.push({ ...(await measure(run, app, scenario, engine, db, keys)), round });
            // W measures the worker alone, not against A: once a round, after the alternated runs.
            if (run.args.webhooks) run.report.drains.push(await measureDrain(run, app, engine, db, keys, round));
          };
          const their = theirs.get(engine);
          const thatRevision = async () => run.report.rows.push({ ...(await measure(run, other!, run.scenarios.A, engine, their!.db, their!.keys)), round, revision: other!.revision });
          // --against: the two versions take turns going first.
          if (their && round % 2 === 0) await thatRevision();
          await thisTree();
          if (their && round % 2 === 1) await thatRevision();
        }
      }
    }),
  );
}

/** Scenario I in --repeat rounds, on each engine; with --against the two versions take turns going first. */
export async function pictureRounds(run: BenchRun, app: BuiltApp, other?: BuiltApp & { revision: string }): Promise<void> {
  const otherSeeder = other && (await revisionSeeder(other.dir, other.revision));
  for (const engine of run.args.engines) {
    const rounds = async (theirs?: { db: BenchDatabase; keys: string[] }) =>
      onSeededDatabase(run, engine, async (db, keys) => {
        for (let round = 1; round <= run.args.repeat; round++) {
          const mineFirst = !theirs || round % 2 === 1;
          const ours = () => measureImages(run, app, run.scenarios.I, engine, db, keys, round);
          const that = () => measureImages(run, other!, run.scenarios.I, engine, theirs!.db, theirs!.keys, round);
          if (!mineFirst) run.report.pictures.push(await that());
          run.report.pictures.push(await ours());
          if (theirs && mineFirst) run.report.pictures.push(await that());
        }
      });
    // --against: the other revision on a database of its own, made by its own code (its schema may be older).
    if (otherSeeder) await onSeededDatabase(run, engine, (db, keys) => rounds({ db, keys }), otherSeeder);
    else await rounds();
  }
}

/**
 * Scenario H: the same load with checks.duplicate, alternating between an
 * empty account and one that already holds --history verifications (empty,
 * history, history, empty: drift on the machine falls on both alike).
 */
export async function measureHistory(run: BenchRun, app: BuiltApp, engine: EngineName): Promise<void> {
  const dir = join(run.work, `history-${engine}`);
  mkdirSync(dir);
  const setup = await createDatabase(engine, dir, run.root);
  const unsupported = setup.ok ? historySupported(engine) : null;
  if (!setup.ok || unsupported) {
    const reason = setup.ok ? unsupported! : setup.reason;
    run.say(`H/${engine}: skipped (${reason})`);
    run.report.skipped.push({ engine: `${engine} (H)`, reason });
    if (setup.ok) await setup.db.drop();
    return;
  }
  const { db } = setup;
  run.report.engines[engine] ??= db.description;
  try {
    const store = await openStore(db.url);
    const accounts = new AccountService(store);
    const made = [];
    try {
      for (const name of ['Empty history', 'Long history']) made.push(await accounts.createAccount({ name, credits: CREDITS_PER_ACCOUNT, actor: 'bench' }));
    } finally {
      await store.close();
    }
    const [empty, full] = made.map((m) => ({ accountId: m.account.id, key: m.apiKey.secret }));
    run.say(`H/${engine}: writing ${run.args.history.toLocaleString('en-US')} verifications of one account`);
    const started = performance.now();
    await seedHistory(db, full!.accountId, run.args.history);
    const seedSeconds = (performance.now() - started) / 1000;
    const [emptyLookupMs, fullLookupMs] = await lookupMs(db, [empty!.accountId, full!.accountId]);
    run.report.history[engine] = { rows: run.args.history, bytes: await databaseBytes(db), seedSeconds, lookupMs: { empty: emptyLookupMs!, full: fullLookupMs! } };
    run.say(
      `H/${engine}: written in ${seedSeconds.toFixed(0)} s; database ${(run.report.history[engine]!.bytes / 2 ** 20).toFixed(0)} MB; ` +
        `the duplicate lookup alone ${emptyLookupMs!.toFixed(3)} ms empty, ${fullLookupMs!.toFixed(3)} ms with the history`,
    );
    const sides = run.args.quick ? [empty!, full!] : [empty!, full!, full!, empty!];
    for (let round = 1; round <= run.args.repeat; round++) {
      for (const side of sides) {
        const history = { stored: side === full ? run.args.history : 0, round };
        run.report.rows.push({ ...(await measure(run, app, run.scenarios.H, engine, db, [side.key])), history });
      }
    }
    run.report.reconcile[`${engine} (H)`] = await reconcile(db);
  } finally {
    await db.drop();
  }
}

/** Scenario F on one engine: the flood and the quiet run, each with its own slipgate and bank. */
export async function floodRuns(run: BenchRun, app: BuiltApp, engine: EngineName): Promise<void> {
  await onSeededDatabase(run, engine, async (db, keys) => {
    const scenario = run.scenarios.F;
    const atMost = run.args.floodSeconds === undefined ? '' : ` or ${run.args.floodSeconds} s, whichever ends first`;
    run.say(`F/${engine}: ${scenario.title}, ${run.args.flood.toLocaleString('en-US')} bad-key requests${atMost}`);
    const start = async (tag: string) => {
      const bank = await startBank(run, app, 0, tag);
      try {
        const target = await startSlipgate(run, app, db, bank.url, tag, undefined, FLOOD_ENV);
        return { target, stop: async () => void (await Promise.all([target.stop(), bank.stop()])) };
      } catch (err) {
        await bank.stop();
        throw err;
      }
    };
    const runs = await measureFlood({ engine, db, keys, floodRequests: run.args.flood, floodSeconds: run.args.floodSeconds, floodConnections: scenario.connections, validRate: scenario.overallRate!, warmupSec: scenario.warmupSec, start, say: run.say });
    run.report.floods.push(...runs);
  });
}
