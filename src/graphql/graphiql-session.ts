// GraphiQL for a signed-in dashboard session. A browser cannot add an
// Authorization header to a page it navigates to, so the dashboard posts its
// token in a form (never in the address bar, history or access log) to
// POST /graphiql on the admin listener, and gets GraphiQL back with that
// token as an extra header on every request GraphiQL sends. Admin role only,
// like GraphiQL at GET /graphql; the page is never cached.
//
// The page holds the bearer secret, so nothing chosen by a person goes into
// it (the token's name is not shown: GraphiQL's renderer writes its title
// unescaped into <title> and into a <script>), and a Content-Security-Policy
// lets only its own inline script run and talk only to this origin.
import express, { type Express } from 'express';
import type { Plugin } from 'graphql-yoga';
import type { AdminTokenService } from '../domain/admin/tokens.js';
import { formToken, requireAdminFormToken, requireAdminRole } from '../admin-auth.js';
import { inlinePagePolicy } from './inline-page-policy.js';

const MAX_FORM_BYTES = 1024;

export function mountGraphiqlSession(app: Express, tokens: AdminTokenService, endpoint: string): void {
  const noStore: express.RequestHandler = (_req, res, next) => {
    res.setHeader('cache-control', 'no-store');
    res.setHeader('referrer-policy', 'no-referrer');
    next();
  };
  const form = express.urlencoded({ extended: false, limit: MAX_FORM_BYTES, parameterLimit: 2 });
  const adminOnly = requireAdminRole('GraphiQL is for the admin role; the dashboard shows the rest');
  app.post('/graphiql', noStore, form, requireAdminFormToken(tokens), adminOnly, async (req, res) => {
    const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
    const html = renderGraphiQL({ endpoint, title: 'slipgate GraphiQL', additionalHeaders: { Authorization: `Bearer ${formToken(req)}` }, shouldPersistHeaders: false });
    for (const [name, value] of Object.entries(pageHeaders(html))) res.setHeader(name, value);
    res.type('html').send(html);
  });
}

/** The same policy on yoga's own GraphiQL page (GET /graphql with a bearer token, admin role). */
export function graphiqlPagePolicy(): Plugin {
  return {
    async onResponse({ response, setResponse, fetchAPI }) {
      if (!response.headers.get('content-type')?.startsWith('text/html')) return;
      const html = await response.text();
      const headers = new fetchAPI.Headers(response.headers);
      for (const [name, value] of Object.entries(pageHeaders(html))) headers.set(name, value);
      setResponse(new fetchAPI.Response(html, { status: response.status, headers }));
    },
  };
}

function pageHeaders(html: string): Record<string, string> {
  return { 'content-security-policy': inlinePagePolicy(html), 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY' };
}
