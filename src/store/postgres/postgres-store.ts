// Server store on PostgreSQL (node-postgres Pool). Several slipgate processes
// may share one database, so every money change is a single statement or a
// single transaction whose guards are evaluated by PostgreSQL under row
// locks, never read-modify-write in JavaScript. The operations live in one
// file per section; this class binds them to one pool.
import type { Store } from '../../domain/ports/store.js';
import * as accounts from './accounts.js';
import * as admin from './admin.js';
import * as audit from './audit.js';
import { PgDb } from './db.js';
import * as holds from './holds.js';
import * as ledger from './ledger.js';
import * as creditsLow from './credits-low.js';
import * as payments from './payments.js';
import * as line from './line.js';
import * as rechecks from './rechecks.js';
import * as receivers from './receivers.js';
import * as retention from './retention.js';
import type { PostgresStoreOptions } from './sql.js';
import * as webhooks from './webhooks.js';

export type { PostgresStoreOptions } from './sql.js';

export class PostgresStore implements Store {
  readonly engine = 'postgres' as const;
  readonly leasesOutbox = true;
  private readonly db: PgDb;

  /** `url` is a postgres:// URL; see PostgresStoreOptions for our own query parameters. */
  constructor(url: string, options: PostgresStoreOptions = {}) {
    this.db = new PgDb(url, options);
  }

  // Every operation of the port, once, bound to this connection: the
  // compiler reports a missing one (implements Store) and a second one
  // (duplicate member). Plain fields, so tests can still replace one.
  createAccount: Store['createAccount'] = (...args) => accounts.createAccount(this.db, ...args);
  getAccount: Store['getAccount'] = (...args) => accounts.getAccount(this.db, ...args);
  getAccounts: Store['getAccounts'] = (...args) => accounts.getAccounts(this.db, ...args);
  listAccounts: Store['listAccounts'] = (...args) => accounts.listAccounts(this.db, ...args);
  deleteAccount: Store['deleteAccount'] = (...args) => accounts.deleteAccount(this.db, ...args);
  renameAccount: Store['renameAccount'] = (...args) => accounts.renameAccount(this.db, ...args);
  createApiKey: Store['createApiKey'] = (...args) => accounts.createApiKey(this.db, ...args);
  findApiKeyByHash: Store['findApiKeyByHash'] = (...args) => accounts.findApiKeyByHash(this.db, ...args);
  getApiKey: Store['getApiKey'] = (...args) => accounts.getApiKey(this.db, ...args);
  listApiKeys: Store['listApiKeys'] = (...args) => accounts.listApiKeys(this.db, ...args);
  revokeApiKey: Store['revokeApiKey'] = (...args) => accounts.revokeApiKey(this.db, ...args);
  setApiKeyAllowedIps: Store['setApiKeyAllowedIps'] = (...args) => accounts.setApiKeyAllowedIps(this.db, ...args);
  touchApiKey: Store['touchApiKey'] = (...args) => accounts.touchApiKey(this.db, ...args);

  createReceiver: Store['createReceiver'] = (...args) => receivers.createReceiver(this.db, ...args);
  getReceiver: Store['getReceiver'] = (...args) => receivers.getReceiver(this.db, ...args);
  listReceivers: Store['listReceivers'] = (...args) => receivers.listReceivers(this.db, ...args);
  setReceiverActive: Store['setReceiverActive'] = (...args) => receivers.setReceiverActive(this.db, ...args);
  deleteReceiver: Store['deleteReceiver'] = (...args) => receivers.deleteReceiver(this.db, ...args);
  setReceiverPolicy: Store['setReceiverPolicy'] = (...args) => receivers.setReceiverPolicy(this.db, ...args);

  createLineChannel: Store['createLineChannel'] = (...args) => line.createLineChannel(this.db, ...args);
  getLineChannel: Store['getLineChannel'] = (...args) => line.getLineChannel(this.db, ...args);
  listLineChannels: Store['listLineChannels'] = (...args) => line.listLineChannels(this.db, ...args);
  deleteLineChannel: Store['deleteLineChannel'] = (...args) => line.deleteLineChannel(this.db, ...args);
  setLineChannelHints: Store['setLineChannelHints'] = (...args) => line.setLineChannelHints(this.db, ...args);
  addLineStaffTarget: Store['addLineStaffTarget'] = (...args) => line.addLineStaffTarget(this.db, ...args);
  removeLineStaffTarget: Store['removeLineStaffTarget'] = (...args) => line.removeLineStaffTarget(this.db, ...args);
  listLineStaffTargets: Store['listLineStaffTargets'] = (...args) => line.listLineStaffTargets(this.db, ...args);
  recordLineGroup: Store['recordLineGroup'] = (...args) => line.recordLineGroup(this.db, ...args);
  listLineGroups: Store['listLineGroups'] = (...args) => line.listLineGroups(this.db, ...args);
  claimLineEvent: Store['claimLineEvent'] = (...args) => line.claimLineEvent(this.db, ...args);
  pruneLineEvents: Store['pruneLineEvents'] = (...args) => line.pruneLineEvents(this.db, ...args);

  createRecheck: Store['createRecheck'] = (...args) => rechecks.createRecheck(this.db, ...args);
  getRecheck: Store['getRecheck'] = (...args) => rechecks.getRecheck(this.db, ...args);
  openRechecks: Store['openRechecks'] = (...args) => rechecks.openRechecks(this.db, ...args);
  countOpenRechecks: Store['countOpenRechecks'] = (...args) => rechecks.countOpenRechecks(this.db, ...args);
  dueRechecks: Store['dueRechecks'] = (...args) => rechecks.dueRechecks(this.db, ...args);
  postponeRecheck: Store['postponeRecheck'] = (...args) => rechecks.postponeRecheck(this.db, ...args);
  finishRecheck: Store['finishRecheck'] = (...args) => rechecks.finishRecheck(this.db, ...args);
  verificationRecorded: Store['verificationRecorded'] = (...args) => rechecks.verificationRecorded(this.db, ...args);

  holdCredit: Store['holdCredit'] = (...args) => holds.holdCredit(this.db, ...args);
  settleHold: Store['settleHold'] = (...args) => holds.settleHold(this.db, ...args);
  releaseHold: Store['releaseHold'] = (...args) => holds.releaseHold(this.db, ...args);
  recoverStaleHolds: Store['recoverStaleHolds'] = (...args) => holds.recoverStaleHolds(this.db, ...args);
  startLease: Store['startLease'] = (instanceId, ttlMs) => holds.startLease(this.db, instanceId, ttlMs);
  renewLease: Store['renewLease'] = (instanceId, ttlMs) => holds.renewLease(this.db, instanceId, ttlMs);
  endLease: Store['endLease'] = (...args) => holds.endLease(this.db, ...args);
  listHolds: Store['listHolds'] = (...args) => holds.listHolds(this.db, ...args);
  insertRequestError: Store['insertRequestError'] = (...args) => holds.insertRequestError(this.db, ...args);

  applyLedgerEntry: Store['applyLedgerEntry'] = (...args) => ledger.applyLedgerEntry(this.db, ...args);
  listLedger: Store['listLedger'] = (...args) => ledger.listLedger(this.db, ...args);
  auditTotals: Store['auditTotals'] = (...args) => ledger.auditTotals(this.db, ...args);

  createAdminToken: Store['createAdminToken'] = (...args) => admin.createAdminToken(this.db, ...args);
  findAdminTokenByHash: Store['findAdminTokenByHash'] = (...args) => admin.findAdminTokenByHash(this.db, ...args);
  listAdminTokens: Store['listAdminTokens'] = (...args) => admin.listAdminTokens(this.db, ...args);
  revokeAdminToken: Store['revokeAdminToken'] = (...args) => admin.revokeAdminToken(this.db, ...args);
  insertAdminEvent: Store['insertAdminEvent'] = (...args) => admin.insertAdminEvent(this.db, ...args);
  listAdminEvents: Store['listAdminEvents'] = (...args) => admin.listAdminEvents(this.db, ...args);

  listVerifyTransactions: Store['listVerifyTransactions'] = (...args) => audit.listVerifyTransactions(this.db, ...args);
  listRequestErrors: Store['listRequestErrors'] = (...args) => audit.listRequestErrors(this.db, ...args);
  usage: Store['usage'] = (...args) => audit.usage(this.db, ...args);

  countPersonalData: Store['countPersonalData'] = (...args) => retention.countPersonalData(this.db, ...args);
  redactVerifyTransactions: Store['redactVerifyTransactions'] = (...args) => retention.redactVerifyTransactions(this.db, ...args);
  deleteRequestErrors: Store['deleteRequestErrors'] = (...args) => retention.deleteRequestErrors(this.db, ...args);
  redactFinishedRechecks: Store['redactFinishedRechecks'] = (...args) => retention.redactFinishedRechecks(this.db, ...args);
  deleteFinishedWebhookDeliveries: Store['deleteFinishedWebhookDeliveries'] = (...args) => retention.deleteFinishedWebhookDeliveries(this.db, ...args);
  purgeRemovedData: Store['purgeRemovedData'] = () => retention.vacuumRedacted(this.db);
  firstLiveLease: Store['firstLiveLease'] = (...args) => retention.firstLiveLease(this.db, ...args);

  createWebhookEndpoint: Store['createWebhookEndpoint'] = (...args) => webhooks.createWebhookEndpoint(this.db, ...args);
  getWebhookEndpoint: Store['getWebhookEndpoint'] = (...args) => webhooks.getWebhookEndpoint(this.db, ...args);
  listWebhookEndpoints: Store['listWebhookEndpoints'] = (...args) => webhooks.listWebhookEndpoints(this.db, ...args);
  removeWebhookEndpoint: Store['removeWebhookEndpoint'] = (...args) => webhooks.removeWebhookEndpoint(this.db, ...args);
  claimWebhookDeliveries: Store['claimWebhookDeliveries'] = (...args) => webhooks.claimWebhookDeliveries(this.db, ...args);
  finishWebhookAttempt: Store['finishWebhookAttempt'] = (...args) => webhooks.finishWebhookAttempt(this.db, ...args);
  getWebhookDelivery: Store['getWebhookDelivery'] = (...args) => webhooks.getWebhookDelivery(this.db, ...args);
  listWebhookDeliveries: Store['listWebhookDeliveries'] = (...args) => webhooks.listWebhookDeliveries(this.db, ...args);
  redeliverWebhook: Store['redeliverWebhook'] = (...args) => webhooks.redeliverWebhook(this.db, ...args);

  uniquePaymentAmounts: Store['uniquePaymentAmounts'] = (...args) => payments.uniquePaymentAmounts(this.db, ...args);
  setUniquePaymentAmounts: Store['setUniquePaymentAmounts'] = (...args) => payments.setUniquePaymentAmounts(this.db, ...args);
  createPaymentRequest: Store['createPaymentRequest'] = (...args) => payments.createPaymentRequest(this.db, ...args);
  getPaymentRequest: Store['getPaymentRequest'] = (...args) => payments.getPaymentRequest(this.db, ...args);
  findPaymentRequest: Store['findPaymentRequest'] = (...args) => payments.findPaymentRequest(this.db, ...args);
  listPaymentRequests: Store['listPaymentRequests'] = (...args) => payments.listPaymentRequests(this.db, ...args);
  pendingPaymentRequests: Store['pendingPaymentRequests'] = (...args) => payments.pendingPaymentRequests(this.db, ...args);
  cancelPaymentRequest: Store['cancelPaymentRequest'] = (...args) => payments.cancelPaymentRequest(this.db, ...args);
  takeCheckoutCheck: Store['takeCheckoutCheck'] = (...args) => payments.takeCheckoutCheck(this.db, ...args);
  creditsLowAt: Store['creditsLowAt'] = (...args) => creditsLow.creditsLowAt(this.db, ...args);
  setCreditsLowAt: Store['setCreditsLowAt'] = (...args) => creditsLow.setCreditsLowAt(this.db, ...args);
  settleCreditsLow: Store['settleCreditsLow'] = (...args) => creditsLow.settleCreditsLow(this.db, ...args);
  resolvePaymentRequest: Store['resolvePaymentRequest'] = (...args) => payments.resolvePaymentRequest(this.db, ...args);
  duePaymentRequests: Store['duePaymentRequests'] = (...args) => payments.duePaymentRequests(this.db, ...args);
  expirePaymentRequests: Store['expirePaymentRequests'] = (...args) => payments.expirePaymentRequests(this.db, ...args);

  migrate(): Promise<void> {
    return this.db.migrate();
  }

  ping(): Promise<void> {
    return this.db.ping();
  }

  isEmpty(): Promise<boolean> {
    return this.db.isEmpty();
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
