// The dashboard's only way to the server: POST graphql (relative, so the page
// also works behind a path prefix) with the admin token as a Bearer header.
import { t } from './i18n/index.js';
import { getToken } from './session.js';

export type AdminRole = 'VIEWER' | 'SUPPORT' | 'ADMIN';

export type ApiFailure =
  /** 401: the token is unknown, revoked or expired. */
  | 'unauthorized'
  /** GraphQL FORBIDDEN: the token's role may not do this. */
  | 'forbidden'
  /** The request never got an answer. */
  | 'network'
  /** Any other GraphQL error (validation, not found, bad input…). */
  | 'graphql'
  /** An answer that is not GraphQL (e.g. 5xx from a proxy). */
  | 'server';

export class ApiError extends Error {
  constructor(
    readonly failure: ApiFailure,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface GraphqlBody<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

export async function gql<T>(query: string, variables: Record<string, unknown> = {}, token = getToken()): Promise<T> {
  let res: Response;
  try {
    res = await fetch('graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${token ?? ''}`,
      },
      body: JSON.stringify({ query, variables }),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError('network', t().api.network);
  }
  if (res.status === 401) throw new ApiError('unauthorized', t().api.unauthorized);
  let body: GraphqlBody<T>;
  try {
    body = (await res.json()) as GraphqlBody<T>;
  } catch {
    throw new ApiError('server', t().api.notGraphql(res.status));
  }
  const first = body.errors?.[0];
  if (first) {
    const code = first.extensions?.code;
    if (code === 'FORBIDDEN') throw new ApiError('forbidden', first.message, code);
    throw new ApiError('graphql', first.message, code);
  }
  if (!res.ok || body.data == null) throw new ApiError('server', t().api.httpStatus(res.status));
  return body.data;
}

/**
 * GET export/audit.csv with the token as a Bearer header (never in the
 * address) and hands the file to the browser as a download.
 */
export async function downloadAuditCsv(params: Record<string, string | null>, token = getToken()): Promise<void> {
  const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== null && e[1] !== ''));
  let res: Response;
  try {
    res = await fetch(`export/audit.csv?${query}`, { headers: { authorization: `Bearer ${token ?? ''}` }, credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ApiError('network', t().api.network);
  }
  if (res.status === 401) throw new ApiError('unauthorized', t().api.unauthorized);
  if (res.status === 403) throw new ApiError('forbidden', t().api.httpStatus(res.status));
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { message?: string } | null;
    throw new ApiError('graphql', body?.message ?? t().api.httpStatus(res.status));
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'slipgate-audit.csv';
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
