// Enums in GraphQL style (UPPER_CASE) over the domain's lower-case values.
import { ERROR_KINDS, type AdminRole, type ErrorKind, type LedgerKind } from '../domain/types.js';
import type { BreakerState } from '../upstream/domain-health.js';
import type { UpstreamFailureKind } from '../domain/ports/upstream.js';
import { builder } from './builder.js';

function upper<T extends string>(values: readonly T[]): Record<string, { value: T }> {
  return Object.fromEntries(values.map((value) => [value.toUpperCase(), { value }]));
}

export const ErrorKindEnum = builder.enumType('ErrorKind', {
  description: 'Why a request failed (never charged).',
  values: upper<ErrorKind>(ERROR_KINDS),
});

export const VerifySourceEnum = builder.enumType('VerifySource', {
  description: 'QRCODE: the caller sent the QR text; IMAGE: slipgate read it from a picture of the slip (never stored); LINE: a customer sent the slip (picture or QR text) in a LINE chat.',
  values: upper<'qrcode' | 'image' | 'line'>(['qrcode', 'image', 'line']),
});

export const LedgerKindEnum = builder.enumType('LedgerKind', {
  values: upper<LedgerKind>(['initial', 'top_up', 'adjustment']),
});

export const AdminRoleEnum = builder.enumType('AdminRole', {
  description: 'VIEWER reads everything except secrets; SUPPORT also tops up and creates/revokes API keys; ADMIN may do everything.',
  values: upper<AdminRole>(['viewer', 'support', 'admin']),
});

export const BreakerStateEnum = builder.enumType('BreakerState', {
  values: upper<BreakerState>(['closed', 'open', 'half_open']),
});

export const UpstreamFailureKindEnum = builder.enumType('UpstreamFailureKind', {
  values: upper<UpstreamFailureKind>(['slip_not_found', 'upstream_timeout', 'upstream_error', 'upstream_unavailable', 'upstream_mismatch']),
});
