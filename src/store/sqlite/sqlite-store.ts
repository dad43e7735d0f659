// Embedded store on better-sqlite3. Every money change is one SQLite
// transaction, so a crash leaves either all of it or none of it. The
// operations live in one file per section; this class binds each to one
// connection, behind the check that the store has not failed
// (store-failure.ts).
import type { Store, StoreFailedError } from '../../domain/ports/store.js';
import * as accounts from './accounts.js';
import * as admin from './admin.js';
import * as audit from './audit.js';
import { migrate, openLite, type Lite } from './connection.js';
import * as holds from './holds.js';
import * as ledger from './ledger.js';
import * as creditsLow from './credits-low.js';
import * as payments from './payments.js';
import * as line from './line.js';
import * as rechecks from './rechecks.js';
import * as receivers from './receivers.js';
import * as retention from './retention.js';
import { guarded } from './store-failure.js';
import * as webhooks from './webhooks.js';

export class SqliteStore implements Store {
  readonly engine = 'sqlite' as const;
  readonly leasesOutbox = true;
  private readonly lite: Lite;

  /** `path` is a file path or ':memory:'; `readonly` opens an existing file as it is (no migration). */
  constructor(path: string, opts: { readonly?: boolean } = {}) {
    this.lite = openLite(path, opts);
    // Every operation below, refused once the store has failed, and every
    // error it throws looked at for a failed disk.
    const operations = Object.fromEntries(Object.entries(this).filter(([, value]) => typeof value === 'function'));
    Object.assign(this, guarded(operations, this.lite.failure));
  }

  get failed(): Promise<StoreFailedError> {
    return this.lite.failure.failed;
  }

  // Every operation of the port, once, bound to this connection: the
  // compiler reports a missing one (implements Store) and a second one
  // (duplicate member). Plain fields, so tests can still replace one.
  createAccount: Store['createAccount'] = (...args) => accounts.createAccount(this.lite, ...args);
  getAccount: Store['getAccount'] = (...args) => accounts.getAccount(this.lite, ...args);
  getAccounts: Store['getAccounts'] = (...args) => accounts.getAccounts(this.lite, ...args);
  listAccounts: Store['listAccounts'] = (...args) => accounts.listAccounts(this.lite, ...args);
  deleteAccount: Store['deleteAccount'] = (...args) => accounts.deleteAccount(this.lite, ...args);
  renameAccount: Store['renameAccount'] = (...args) => accounts.renameAccount(this.lite, ...args);
  createApiKey: Store['createApiKey'] = (...args) => accounts.createApiKey(this.lite, ...args);
  findApiKeyByHash: Store['findApiKeyByHash'] = (...args) => accounts.findApiKeyByHash(this.lite, ...args);
  getApiKey: Store['getApiKey'] = (...args) => accounts.getApiKey(this.lite, ...args);
  listApiKeys: Store['listApiKeys'] = (...args) => accounts.listApiKeys(this.lite, ...args);
  revokeApiKey: Store['revokeApiKey'] = (...args) => accounts.revokeApiKey(this.lite, ...args);
  setApiKeyAllowedIps: Store['setApiKeyAllowedIps'] = (...args) => accounts.setApiKeyAllowedIps(this.lite, ...args);
  touchApiKey: Store['touchApiKey'] = (...args) => accounts.touchApiKey(this.lite, ...args);

  createReceiver: Store['createReceiver'] = (...args) => receivers.createReceiver(this.lite, ...args);
  getReceiver: Store['getReceiver'] = (...args) => receivers.getReceiver(this.lite, ...args);
  listReceivers: Store['listReceivers'] = (...args) => receivers.listReceivers(this.lite, ...args);
  setReceiverActive: Store['setReceiverActive'] = (...args) => receivers.setReceiverActive(this.lite, ...args);
  deleteReceiver: Store['deleteReceiver'] = (...args) => receivers.deleteReceiver(this.lite, ...args);
  setReceiverPolicy: Store['setReceiverPolicy'] = (...args) => receivers.setReceiverPolicy(this.lite, ...args);

  createLineChannel: Store['createLineChannel'] = (...args) => line.createLineChannel(this.lite, ...args);
  getLineChannel: Store['getLineChannel'] = (...args) => line.getLineChannel(this.lite, ...args);
  listLineChannels: Store['listLineChannels'] = (...args) => line.listLineChannels(this.lite, ...args);
  deleteLineChannel: Store['deleteLineChannel'] = (...args) => line.deleteLineChannel(this.lite, ...args);
  setLineChannelHints: Store['setLineChannelHints'] = (...args) => line.setLineChannelHints(this.lite, ...args);
  addLineStaffTarget: Store['addLineStaffTarget'] = (...args) => line.addLineStaffTarget(this.lite, ...args);
  removeLineStaffTarget: Store['removeLineStaffTarget'] = (...args) => line.removeLineStaffTarget(this.lite, ...args);
  listLineStaffTargets: Store['listLineStaffTargets'] = (...args) => line.listLineStaffTargets(this.lite, ...args);
  recordLineGroup: Store['recordLineGroup'] = (...args) => line.recordLineGroup(this.lite, ...args);
  listLineGroups: Store['listLineGroups'] = (...args) => line.listLineGroups(this.lite, ...args);
  claimLineEvent: Store['claimLineEvent'] = (...args) => line.claimLineEvent(this.lite, ...args);
  pruneLineEvents: Store['pruneLineEvents'] = (...args) => line.pruneLineEvents(this.lite, ...args);

  createRecheck: Store['createRecheck'] = (...args) => rechecks.createRecheck(this.lite, ...args);
  getRecheck: Store['getRecheck'] = (...args) => rechecks.getRecheck(this.lite, ...args);
  openRechecks: Store['openRechecks'] = (...args) => rechecks.openRechecks(this.lite, ...args);
  countOpenRechecks: Store['countOpenRechecks'] = (...args) => rechecks.countOpenRechecks(this.lite, ...args);
  dueRechecks: Store['dueRechecks'] = (...args) => rechecks.dueRechecks(this.lite, ...args);
  postponeRecheck: Store['postponeRecheck'] = (...args) => rechecks.postponeRecheck(this.lite, ...args);
  finishRecheck: Store['finishRecheck'] = (...args) => rechecks.finishRecheck(this.lite, ...args);
  verificationRecorded: Store['verificationRecorded'] = (...args) => rechecks.verificationRecorded(this.lite, ...args);

  holdCredit: Store['holdCredit'] = (...args) => holds.holdCredit(this.lite, ...args);
  settleHold: Store['settleHold'] = (...args) => holds.settleHold(this.lite, ...args);
  releaseHold: Store['releaseHold'] = (...args) => holds.releaseHold(this.lite, ...args);
  recoverStaleHolds: Store['recoverStaleHolds'] = (...args) => holds.recoverStaleHolds(this.lite, ...args);
  startLease: Store['startLease'] = (...args) => holds.startLease(this.lite, ...args);
  renewLease: Store['renewLease'] = (...args) => holds.renewLease(this.lite, ...args);
  endLease: Store['endLease'] = (...args) => holds.endLease(this.lite, ...args);
  listHolds: Store['listHolds'] = (...args) => holds.listHolds(this.lite, ...args);
  insertRequestError: Store['insertRequestError'] = (...args) => holds.insertRequestError(this.lite, ...args);

  applyLedgerEntry: Store['applyLedgerEntry'] = (...args) => ledger.applyLedgerEntry(this.lite, ...args);
  listLedger: Store['listLedger'] = (...args) => ledger.listLedger(this.lite, ...args);
  auditTotals: Store['auditTotals'] = (...args) => ledger.auditTotals(this.lite, ...args);

  createAdminToken: Store['createAdminToken'] = (...args) => admin.createAdminToken(this.lite, ...args);
  findAdminTokenByHash: Store['findAdminTokenByHash'] = (...args) => admin.findAdminTokenByHash(this.lite, ...args);
  listAdminTokens: Store['listAdminTokens'] = (...args) => admin.listAdminTokens(this.lite, ...args);
  revokeAdminToken: Store['revokeAdminToken'] = (...args) => admin.revokeAdminToken(this.lite, ...args);
  insertAdminEvent: Store['insertAdminEvent'] = (...args) => admin.insertAdminEvent(this.lite, ...args);
  listAdminEvents: Store['listAdminEvents'] = (...args) => admin.listAdminEvents(this.lite, ...args);

  listVerifyTransactions: Store['listVerifyTransactions'] = (...args) => audit.listVerifyTransactions(this.lite, ...args);
  listRequestErrors: Store['listRequestErrors'] = (...args) => audit.listRequestErrors(this.lite, ...args);
  usage: Store['usage'] = (...args) => audit.usage(this.lite, ...args);

  countPersonalData: Store['countPersonalData'] = (...args) => retention.countPersonalData(this.lite, ...args);
  redactVerifyTransactions: Store['redactVerifyTransactions'] = (...args) => retention.redactVerifyTransactions(this.lite, ...args);
  deleteRequestErrors: Store['deleteRequestErrors'] = (...args) => retention.deleteRequestErrors(this.lite, ...args);
  redactFinishedRechecks: Store['redactFinishedRechecks'] = (...args) => retention.redactFinishedRechecks(this.lite, ...args);
  deleteFinishedWebhookDeliveries: Store['deleteFinishedWebhookDeliveries'] = (...args) => retention.deleteFinishedWebhookDeliveries(this.lite, ...args);
  purgeRemovedData: Store['purgeRemovedData'] = () => retention.truncateWal(this.lite);
  firstLiveLease: Store['firstLiveLease'] = (...args) => retention.firstLiveLease(this.lite, ...args);

  createWebhookEndpoint: Store['createWebhookEndpoint'] = (...args) => webhooks.createWebhookEndpoint(this.lite, ...args);
  getWebhookEndpoint: Store['getWebhookEndpoint'] = (...args) => webhooks.getWebhookEndpoint(this.lite, ...args);
  listWebhookEndpoints: Store['listWebhookEndpoints'] = (...args) => webhooks.listWebhookEndpoints(this.lite, ...args);
  removeWebhookEndpoint: Store['removeWebhookEndpoint'] = (...args) => webhooks.removeWebhookEndpoint(this.lite, ...args);
  claimWebhookDeliveries: Store['claimWebhookDeliveries'] = (...args) => webhooks.claimWebhookDeliveries(this.lite, ...args);
  finishWebhookAttempt: Store['finishWebhookAttempt'] = (...args) => webhooks.finishWebhookAttempt(this.lite, ...args);
  getWebhookDelivery: Store['getWebhookDelivery'] = (...args) => webhooks.getWebhookDelivery(this.lite, ...args);
  listWebhookDeliveries: Store['listWebhookDeliveries'] = (...args) => webhooks.listWebhookDeliveries(this.lite, ...args);
  redeliverWebhook: Store['redeliverWebhook'] = (...args) => webhooks.redeliverWebhook(this.lite, ...args);

  uniquePaymentAmounts: Store['uniquePaymentAmounts'] = (...args) => payments.uniquePaymentAmounts(this.lite, ...args);
  setUniquePaymentAmounts: Store['setUniquePaymentAmounts'] = (...args) => payments.setUniquePaymentAmounts(this.lite, ...args);
  createPaymentRequest: Store['createPaymentRequest'] = (...args) => payments.createPaymentRequest(this.lite, ...args);
  getPaymentRequest: Store['getPaymentRequest'] = (...args) => payments.getPaymentRequest(this.lite, ...args);
  findPaymentRequest: Store['findPaymentRequest'] = (...args) => payments.findPaymentRequest(this.lite, ...args);
  listPaymentRequests: Store['listPaymentRequests'] = (...args) => payments.listPaymentRequests(this.lite, ...args);
  pendingPaymentRequests: Store['pendingPaymentRequests'] = (...args) => payments.pendingPaymentRequests(this.lite, ...args);
  cancelPaymentRequest: Store['cancelPaymentRequest'] = (...args) => payments.cancelPaymentRequest(this.lite, ...args);
  takeCheckoutCheck: Store['takeCheckoutCheck'] = (...args) => payments.takeCheckoutCheck(this.lite, ...args);
  creditsLowAt: Store['creditsLowAt'] = (...args) => creditsLow.creditsLowAt(this.lite, ...args);
  setCreditsLowAt: Store['setCreditsLowAt'] = (...args) => creditsLow.setCreditsLowAt(this.lite, ...args);
  settleCreditsLow: Store['settleCreditsLow'] = (...args) => creditsLow.settleCreditsLow(this.lite, ...args);
  resolvePaymentRequest: Store['resolvePaymentRequest'] = (...args) => payments.resolvePaymentRequest(this.lite, ...args);
  duePaymentRequests: Store['duePaymentRequests'] = (...args) => payments.duePaymentRequests(this.lite, ...args);
  expirePaymentRequests: Store['expirePaymentRequests'] = (...args) => payments.expirePaymentRequests(this.lite, ...args);

  async migrate(): Promise<void> {
    this.lite.failure.check();
    migrate(this.lite.db);
  }

  async ping(): Promise<void> {
    this.lite.failure.check();
    this.lite.sql('SELECT 1').get();
  }

  async close(): Promise<void> {
    // A failed store closes too. Closing checkpoints: every committed frame
    // is written into the database file afresh and fsynced, or, if that
    // fails, the WAL stays for the next start (connection.ts). Nothing
    // acknowledged depends on either.
    if (!this.lite.db.open) return;
    await this.lite.writes.drain();
    this.lite.db.close();
    this.lite.wal.close();
  }
}
