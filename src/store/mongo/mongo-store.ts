// Server store on MongoDB through mongoose. Several slipgate processes may
// share one database (a replica set, or a single mongod). Multi-document
// transactions are not used (they need a replica set): every money change
// is a single-document atomic write, sequenced so that recovery can finish
// whatever a crash interrupts. holds.ts and ledger.ts explain the designs.
import mongoose, { type Connection } from 'mongoose';
import type { CreditHold, LedgerEntry, RequestErrorRecord, VerifyTransactionRecord } from '../../domain/types.js';
import {
  type AuditTotals,
  type HoldResult,
  type LedgerResult,
  type RecoveryResult,
  type SettlePayment,
  type Store,
} from '../../domain/ports/store.js';
import * as accountOps from './accounts.js';
import * as creditsLow from './credits-low.js';
import * as payments from './payments.js';
import * as line from './line.js';
import * as rechecks from './rechecks.js';
import * as receivers from './receivers.js';
import type { NonAtomicProbe } from '../non-atomic.js';
import { connectOptions, mapped, type MongoStoreOptions } from './connection.js';
import * as doc from './docs.js';
import { NEWEST_FIRST, type Filter } from './filters.js';
import { HoldBook } from './holds.js';
import { Leases } from './leases.js';
import { Ledger } from './ledger.js';
import * as records from './records.js';
import * as retention from './retention.js';
import { defineModels, RETIRED_INDEXES, type Models } from './schemas.js';
import * as webhooks from './webhooks.js';
import { backfillSlipReferences } from './slip-references.js';
import type { NewWebhookDelivery } from '../../domain/webhooks/types.js';
import type { PayResult } from '../../domain/payments/types.js';

/** MongoDB's "collection already exists" (createCollection is not idempotent). */
const NAMESPACE_EXISTS = 48;
/** MongoDB's "index not found": another process dropped it first, or it never existed. */
const INDEX_NOT_FOUND = 27;

function ignoreIndexNotFound(err: unknown): void {
  if ((err as { code?: unknown }).code !== INDEX_NOT_FOUND) throw err;
}

export class MongoStore implements Store, NonAtomicProbe {
  readonly engine = 'mongo' as const;
  readonly leasesOutbox = false;
  private readonly conn: Connection;
  private readonly m: Models;
  private readonly holds: HoldBook;
  private readonly leases: Leases;
  private readonly ledger: Ledger;
  private readonly connected: Promise<unknown>;

  /** `url` is a mongodb:// or mongodb+srv:// URL. */
  constructor(url: string, options: MongoStoreOptions = {}) {
    this.conn = mongoose.createConnection(url, connectOptions(url, options));
    // Connection errors surface on the operations (as 'unavailable'); the
    // event itself must not crash the process.
    this.conn.on('error', () => {});
    this.connected = this.conn.asPromise();
    this.connected.catch(() => {});
    this.m = defineModels(this.conn);
    this.holds = new HoldBook(this.m);
    this.leases = new Leases(this.m, this.holds);
    this.ledger = new Ledger(this.m, (id) => this.getAccount(id));
  }

  /**
   * FerretDB names itself in buildInfo (ferretdbVersion): it applies a
   * guarded findOneAndUpdate by reading and writing back (non-atomic.ts).
   */
  async nonAtomicServer(): Promise<string | null> {
    const info = await mapped(async () => {
      await this.connected;
      return this.conn.db!.admin().command({ buildInfo: 1 });
    });
    const version: unknown = info.ferretdbVersion;
    if (version === undefined) return null;
    // The server's own words, shown to the operator: a version's characters only.
    return `FerretDB ${typeof version === 'string' ? version.replace(/[^\w.+-]/g, '').slice(0, 32) : '(version unknown)'}`;
  }

  // The operations kept in section files, each once, bound to the models
  // (the others are methods below): the compiler reports a missing one
  // (implements Store) and a second one (duplicate member). Plain fields, so
  // tests can still replace one.
  createAccount: Store['createAccount'] = (...args) => accountOps.createAccount(this.m, ...args);
  getAccount: Store['getAccount'] = (...args) => accountOps.getAccount(this.m, ...args);
  getAccounts: Store['getAccounts'] = (...args) => accountOps.getAccounts(this.m, ...args);
  listAccounts: Store['listAccounts'] = (...args) => accountOps.listAccounts(this.m, ...args);
  deleteAccount: Store['deleteAccount'] = (...args) => accountOps.deleteAccount(this.m, ...args);
  renameAccount: Store['renameAccount'] = (...args) => accountOps.renameAccount(this.m, ...args);
  createApiKey: Store['createApiKey'] = (...args) => accountOps.createApiKey(this.m, ...args);
  findApiKeyByHash: Store['findApiKeyByHash'] = (...args) => accountOps.findApiKeyByHash(this.m, ...args);
  getApiKey: Store['getApiKey'] = (...args) => accountOps.getApiKey(this.m, ...args);
  listApiKeys: Store['listApiKeys'] = (...args) => accountOps.listApiKeys(this.m, ...args);
  revokeApiKey: Store['revokeApiKey'] = (...args) => accountOps.revokeApiKey(this.m, ...args);
  setApiKeyAllowedIps: Store['setApiKeyAllowedIps'] = (...args) => accountOps.setApiKeyAllowedIps(this.m, ...args);
  touchApiKey: Store['touchApiKey'] = (...args) => accountOps.touchApiKey(this.m, ...args);

  createReceiver: Store['createReceiver'] = (...args) => receivers.createReceiver(this.m, ...args);
  getReceiver: Store['getReceiver'] = (...args) => receivers.getReceiver(this.m, ...args);
  listReceivers: Store['listReceivers'] = (...args) => receivers.listReceivers(this.m, ...args);
  setReceiverActive: Store['setReceiverActive'] = (...args) => receivers.setReceiverActive(this.m, ...args);
  deleteReceiver: Store['deleteReceiver'] = (...args) => receivers.deleteReceiver(this.m, ...args);
  setReceiverPolicy: Store['setReceiverPolicy'] = (...args) => receivers.setReceiverPolicy(this.m, ...args);

  createLineChannel: Store['createLineChannel'] = (...args) => line.createLineChannel(this.m, ...args);
  getLineChannel: Store['getLineChannel'] = (...args) => line.getLineChannel(this.m, ...args);
  listLineChannels: Store['listLineChannels'] = (...args) => line.listLineChannels(this.m, ...args);
  deleteLineChannel: Store['deleteLineChannel'] = (...args) => line.deleteLineChannel(this.m, ...args);
  setLineChannelHints: Store['setLineChannelHints'] = (...args) => line.setLineChannelHints(this.m, ...args);
  addLineStaffTarget: Store['addLineStaffTarget'] = (...args) => line.addLineStaffTarget(this.m, ...args);
  removeLineStaffTarget: Store['removeLineStaffTarget'] = (...args) => line.removeLineStaffTarget(this.m, ...args);
  listLineStaffTargets: Store['listLineStaffTargets'] = (...args) => line.listLineStaffTargets(this.m, ...args);
  recordLineGroup: Store['recordLineGroup'] = (...args) => line.recordLineGroup(this.m, ...args);
  listLineGroups: Store['listLineGroups'] = (...args) => line.listLineGroups(this.m, ...args);
  claimLineEvent: Store['claimLineEvent'] = (...args) => line.claimLineEvent(this.m, ...args);
  pruneLineEvents: Store['pruneLineEvents'] = (...args) => line.pruneLineEvents(this.m, ...args);

  createRecheck: Store['createRecheck'] = (...args) => rechecks.createRecheck(this.m, ...args);
  getRecheck: Store['getRecheck'] = (...args) => rechecks.getRecheck(this.m, ...args);
  openRechecks: Store['openRechecks'] = (...args) => rechecks.openRechecks(this.m, ...args);
  countOpenRechecks: Store['countOpenRechecks'] = (...args) => rechecks.countOpenRechecks(this.m, ...args);
  dueRechecks: Store['dueRechecks'] = (...args) => rechecks.dueRechecks(this.m, ...args);
  postponeRecheck: Store['postponeRecheck'] = (...args) => rechecks.postponeRecheck(this.m, ...args);
  finishRecheck: Store['finishRecheck'] = (...args) => rechecks.finishRecheck(this.m, ...args);
  verificationRecorded: Store['verificationRecorded'] = (...args) => rechecks.verificationRecorded(this.m, ...args);

  createAdminToken: Store['createAdminToken'] = (...args) => records.createAdminToken(this.m, ...args);
  findAdminTokenByHash: Store['findAdminTokenByHash'] = (...args) => records.findAdminTokenByHash(this.m, ...args);
  listAdminTokens: Store['listAdminTokens'] = (...args) => records.listAdminTokens(this.m, ...args);
  revokeAdminToken: Store['revokeAdminToken'] = (...args) => records.revokeAdminToken(this.m, ...args);
  insertAdminEvent: Store['insertAdminEvent'] = (...args) => records.insertAdminEvent(this.m, ...args);
  listAdminEvents: Store['listAdminEvents'] = (...args) => records.listAdminEvents(this.m, ...args);
  listVerifyTransactions: Store['listVerifyTransactions'] = (...args) => records.listVerifyTransactions(this.m, ...args);
  listRequestErrors: Store['listRequestErrors'] = (...args) => records.listRequestErrors(this.m, ...args);
  usage: Store['usage'] = (...args) => records.usage(this.m, ...args);

  countPersonalData: Store['countPersonalData'] = (...args) => retention.countPersonalData(this.m, ...args);
  redactVerifyTransactions: Store['redactVerifyTransactions'] = (...args) => retention.redactVerifyTransactions(this.m, ...args);
  deleteRequestErrors: Store['deleteRequestErrors'] = (...args) => retention.deleteRequestErrors(this.m, ...args);
  redactFinishedRechecks: Store['redactFinishedRechecks'] = (...args) => retention.redactFinishedRechecks(this.m, ...args);
  deleteFinishedWebhookDeliveries: Store['deleteFinishedWebhookDeliveries'] = (...args) => retention.deleteFinishedWebhookDeliveries(this.m, ...args);
  purgeRemovedData: Store['purgeRemovedData'] = () => retention.compactRedacted(this.m);
  firstLiveLease: Store['firstLiveLease'] = (...args) => retention.firstLiveLease(this.m, ...args);

  createWebhookEndpoint: Store['createWebhookEndpoint'] = (...args) => webhooks.createWebhookEndpoint(this.m, ...args);
  getWebhookEndpoint: Store['getWebhookEndpoint'] = (...args) => webhooks.getWebhookEndpoint(this.m, ...args);
  listWebhookEndpoints: Store['listWebhookEndpoints'] = (...args) => webhooks.listWebhookEndpoints(this.m, ...args);
  removeWebhookEndpoint: Store['removeWebhookEndpoint'] = (...args) => webhooks.removeWebhookEndpoint(this.m, ...args);
  claimWebhookDeliveries: Store['claimWebhookDeliveries'] = (...args) => webhooks.claimWebhookDeliveries(this.m, ...args);
  finishWebhookAttempt: Store['finishWebhookAttempt'] = (...args) => webhooks.finishWebhookAttempt(this.m, ...args);
  getWebhookDelivery: Store['getWebhookDelivery'] = (...args) => webhooks.getWebhookDelivery(this.m, ...args);
  listWebhookDeliveries: Store['listWebhookDeliveries'] = (...args) => webhooks.listWebhookDeliveries(this.m, ...args);
  redeliverWebhook: Store['redeliverWebhook'] = (...args) => webhooks.redeliverWebhook(this.m, ...args);

  uniquePaymentAmounts: Store['uniquePaymentAmounts'] = (...args) => payments.uniquePaymentAmounts(this.m, ...args);
  setUniquePaymentAmounts: Store['setUniquePaymentAmounts'] = (...args) => payments.setUniquePaymentAmounts(this.m, ...args);
  createPaymentRequest: Store['createPaymentRequest'] = (...args) => payments.createPaymentRequest(this.m, ...args);
  getPaymentRequest: Store['getPaymentRequest'] = (...args) => payments.getPaymentRequest(this.m, ...args);
  findPaymentRequest: Store['findPaymentRequest'] = (...args) => payments.findPaymentRequest(this.m, ...args);
  listPaymentRequests: Store['listPaymentRequests'] = (...args) => payments.listPaymentRequests(this.m, ...args);
  pendingPaymentRequests: Store['pendingPaymentRequests'] = (...args) => payments.pendingPaymentRequests(this.m, ...args);
  cancelPaymentRequest: Store['cancelPaymentRequest'] = (...args) => payments.cancelPaymentRequest(this.m, ...args);
  takeCheckoutCheck: Store['takeCheckoutCheck'] = (...args) => payments.takeCheckoutCheck(this.m, ...args);
  creditsLowAt: Store['creditsLowAt'] = (...args) => creditsLow.creditsLowAt(this.m, ...args);
  setCreditsLowAt: Store['setCreditsLowAt'] = (...args) => creditsLow.setCreditsLowAt(this.m, ...args);
  settleCreditsLow: Store['settleCreditsLow'] = (...args) => creditsLow.settleCreditsLow(this.m, ...args);
  resolvePaymentRequest: Store['resolvePaymentRequest'] = (...args) => payments.resolvePaymentRequest(this.m, ...args);
  duePaymentRequests: Store['duePaymentRequests'] = (...args) => payments.duePaymentRequests(this.m, ...args);
  expirePaymentRequests: Store['expirePaymentRequests'] = (...args) => payments.expirePaymentRequests(this.m, ...args);

  async migrate(): Promise<void> {
    await mapped(async () => {
      await this.connected;
      // Every process runs this on start; both steps are idempotent, and
      // concurrent index builds of the same spec are merged by the server.
      for (const model of Object.values(this.m) as mongoose.Model<unknown>[]) {
        await model.createCollection().catch((err: unknown) => {
          if ((err as { code?: unknown }).code !== NAMESPACE_EXISTS) throw err;
        });
        await model.createIndexes();
      }
      for (const [name, indexes] of Object.entries(RETIRED_INDEXES)) {
        for (const index of indexes) await this.m[name as keyof Models].collection.dropIndex(index).catch(ignoreIndexNotFound);
      }
      await payments.backfillPaymentTargets(this.m);
      await webhooks.backfillFinishedAt(this.m);
      await rechecks.backfillLineChat(this.m);
      await backfillSlipReferences(this.m);
    });
  }

  /**
   * MongoDB creates a database on its first write, so one without a single
   * collection does not exist yet: opening it must not be what creates it.
   */
  async isEmpty(): Promise<boolean> {
    return mapped(async () => {
      await this.connected;
      return (await this.conn.db!.listCollections({}, { nameOnly: true }).toArray()).length === 0;
    });
  }

  async ping(): Promise<void> {
    await mapped(async () => {
      await this.connected;
      await this.conn.db!.command({ ping: 1 });
    });
  }

  async close(): Promise<void> {
    await this.conn.close();
  }

  async holdCredit(hold: CreditHold): Promise<HoldResult> {
    return mapped(() => this.holds.hold(hold));
  }

  async settleHold(record: VerifyTransactionRecord, deliveries: readonly NewWebhookDelivery[] = [], payment?: SettlePayment): Promise<PayResult | undefined> {
    return mapped(() => this.holds.settle(record, deliveries, payment));
  }

  async releaseHold(record: RequestErrorRecord & { accountId: string }): Promise<number> {
    return mapped(() => this.holds.release(record));
  }

  async recoverStaleHolds(olderThan: Date, now: Date): Promise<RecoveryResult> {
    return mapped(async () => {
      const result = await this.leases.recoverHolds(olderThan, now);
      // The ledger's crash leftovers are finished by the same periodic pass.
      await this.ledger.recover(olderThan, now);
      return result;
    });
  }

  async startLease(instanceId: string, ttlMs: number, now: Date): Promise<void> {
    await mapped(() => this.leases.start(instanceId, ttlMs, now));
  }

  async renewLease(instanceId: string, ttlMs: number, now: Date): Promise<boolean> {
    return mapped(() => this.leases.renew(instanceId, ttlMs, now));
  }

  async endLease(instanceId: string): Promise<void> {
    await mapped(() => this.leases.end(instanceId));
  }

  async listHolds(accountId?: string): Promise<CreditHold[]> {
    return mapped(async () => {
      const filter: Filter = accountId ? { _id: accountId } : { 'holds._id': { $exists: true } };
      const accounts = await this.m.accounts.find(filter, { holds: 1 }).lean<Pick<doc.AccountDoc, '_id' | 'holds'>[]>();
      return accounts
        .flatMap((a) => (a.holds ?? []).map((h) => doc.hold(a._id, h)))
        .sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime());
    });
  }

  async insertRequestError(record: RequestErrorRecord): Promise<void> {
    await mapped(() => this.holds.insertRequestError(record));
  }

  async applyLedgerEntry(entry: LedgerEntry): Promise<LedgerResult> {
    return mapped(() => this.ledger.apply(entry));
  }

  async listLedger(accountId: string, limit: number): Promise<LedgerEntry[]> {
    return mapped(async () => {
      const filter = await this.countedLedger(accountId);
      return (await this.m.ledger.find(filter).sort(NEWEST_FIRST).limit(limit).lean<doc.LedgerDoc[]>()).map(doc.ledger);
    });
  }

  async auditTotals(accountId: string): Promise<AuditTotals | null> {
    const account = await this.getAccount(accountId);
    if (!account) return null;
    return mapped(async () => {
      const [sums, verifyTransactions] = await Promise.all([
        this.countedLedger(accountId).then((filter) => this.m.ledger.aggregate<{ total: number }>([{ $match: filter }, { $group: { _id: null, total: { $sum: '$delta' } } }])),
        this.m.verifyTransactions.countDocuments({ accountId }),
      ]);
      return { credits: account.credits, held: account.held, usage: account.usage, ledgerTotal: Number(sums[0]?.total ?? 0), verifyTransactions };
    });
  }

  /** Entries whose delta is in the account's credits (see ledger.ts). */
  private async countedLedger(accountId: string): Promise<Filter> {
    const pendingApplied = await this.ledger.appliedPendingIds(accountId);
    if (pendingApplied.length === 0) return { accountId, state: 'applied' };
    return { accountId, $or: [{ state: 'applied' }, { _id: { $in: pendingApplied } }] };
  }
}
