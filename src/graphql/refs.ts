// Object types referenced across areas, declared once so the area files can
// point at each other without circular imports.
import type { IssuedKey } from '../domain/accounts/operations.js';
import type { Account, AdminEvent, ApiKey, LedgerEntry, RequestErrorRecord, VerifyTransactionRecord } from '../domain/types.js';
import { builder } from './builder.js';

export const AccountRef = builder.objectRef<Account>('Account');
export const ApiKeyRef = builder.objectRef<ApiKey>('ApiKey');
export const IssuedApiKeyRef = builder.objectRef<IssuedKey>('IssuedApiKey');
export const LedgerEntryRef = builder.objectRef<LedgerEntry>('LedgerEntry');
export const VerifyTransactionRef = builder.objectRef<VerifyTransactionRecord>('VerifyTransaction');
export const RequestErrorRef = builder.objectRef<RequestErrorRecord>('RequestError');
export const AdminEventRef = builder.objectRef<AdminEvent>('AdminEvent');
