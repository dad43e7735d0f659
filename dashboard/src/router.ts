// Hash routes (#/accounts, #/accounts/<id>, #/top-up?account=<id>, #/audit?…,
// #/upstreams): the admin listener serves one file and the state operators
// want to share (filters, account) stays in the address. Never the token.
export interface Route {
  path: string[];
  params: URLSearchParams;
}

export function currentRoute(): Route {
  const raw = location.hash.replace(/^#\/?/, '');
  const [pathPart = '', query = ''] = raw.split('?', 2);
  const path = pathPart.split('/').filter(Boolean).map(decodeURIComponent);
  return { path: path.length ? path : ['accounts'], params: new URLSearchParams(query) };
}

export function href(path: string[], params?: Record<string, string | null | undefined>): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) if (v) query.set(k, v);
  const qs = query.toString();
  return `#/${path.map(encodeURIComponent).join('/')}${qs ? `?${qs}` : ''}`;
}
