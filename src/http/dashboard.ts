// Serves the internal dashboard (dashboard/, bundled into dist/dashboard by
// `npm run build`) on the admin listener. Static files only: the page talks
// to /graphql with the admin token the operator types in, so nothing here
// needs a token and nothing secret is in these files.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express, type Response } from 'express';
import type { Logger } from 'pino';

export interface DashboardOptions {
  /** Folder holding index.html and assets/ (the build output). */
  dir: string;
  logger: Logger;
}

/** <package root>/dist/dashboard, from src/http (tsx) as well as dist/http (node). */
export function defaultDashboardDir(): string {
  return join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'), 'dist', 'dashboard');
}

// Everything the page needs comes from this origin; no inline script, no
// framing; forms submit only here (the GraphiQL form posts the token in its
// body, so it stays out of URLs).
const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; " +
    "font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

function secure(res: Response): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
}

export function mountDashboard(app: Express, { dir, logger }: DashboardOptions): void {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) {
    logger.warn({ dir }, 'dashboard not built: GET / explains how to build it (npm run build)');
  }
  const sendIndex = (res: Response) => {
    secure(res);
    res.setHeader('cache-control', 'no-cache');
    if (!existsSync(index)) {
      res.status(503).type('html').send(NOT_BUILT);
      return;
    }
    res.sendFile(index);
  };
  app.get(['/', '/index.html'], (_req, res) => sendIndex(res));
  app.use(
    '/assets',
    express.static(join(dir, 'assets'), {
      index: false,
      redirect: false,
      fallthrough: true,
      // Names are not hashed; revalidate with the ETag instead of caching blindly.
      setHeaders: (res) => {
        secure(res);
        res.setHeader('cache-control', 'no-cache');
      },
    }),
  );
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>slipgate dashboard not built</title></head>
<body><main><h1>The slipgate dashboard is not built</h1>
<p>This admin listener serves the dashboard from <code>dist/dashboard/</code>, which is made by
<code>npm run build</code> (it also runs on <code>npm ci</code>). Build it, then reload this page.</p>
<p>The GraphQL API at <code>/graphql</code> works without it.</p></main></body></html>
`;
