// What every page gets from the shell.
import { ApiError, type AdminRole } from './api.js';
import { h } from './dom.js';
import { t } from './i18n/index.js';

export interface Me {
  id: string;
  name: string;
  role: AdminRole;
  prefix: string;
}

export interface PageContext {
  /** The page's area; the shell has emptied it. */
  main: HTMLElement;
  /** Route segments after "#/", e.g. ["accounts", "acc_1"]. */
  path: string[];
  params: URLSearchParams;
  me: Me;
  /** Read out by screen readers (polite). */
  announce(message: string): void;
  /** False once the operator moved to another page: drop late results. */
  isCurrent(): boolean;
  /** A 401 ends the session (back to sign-in); anything else becomes the returned message element. */
  problem(err: unknown, retry?: () => void): HTMLElement;
}

export const roleName = (role: AdminRole): string => t().roles[role] ?? role.toLowerCase();

/** Top-ups and key changes need SUPPORT or ADMIN (the API enforces it; the page only mirrors it). */
export const canChangeCredits = (me: Me): boolean => me.role !== 'VIEWER';

/**
 * A link to an action the signed-in role may use, or the same control,
 * disabled and saying why, for a role that may not: nobody finds out only
 * after filling in a form.
 */
export function roleGatedLink(me: Me, allowed: boolean, attrs: { href: string; class: string }, ...label: (Node | string)[]): HTMLElement {
  if (allowed) return h('a', attrs, ...label);
  return h('button', { type: 'button', class: `${attrs.class} gated`, disabled: true, title: t().app.forbidden(roleName(me.role)) }, ...label);
}

/** Sentence for an error a page cannot handle itself. */
export function describeError(err: unknown, me: Me): string {
  if (err instanceof ApiError) {
    if (err.failure === 'forbidden') return t().app.forbidden(roleName(me.role));
    return err.message;
  }
  return t().app.dashboardBug(err instanceof Error ? err.message : String(err));
}

/** An alert box with an optional retry button. */
export function errorBox(message: string, retry?: () => void): HTMLElement {
  return h(
    'div',
    { class: 'notice error', role: 'alert' },
    h('p', {}, message),
    retry ? h('button', { type: 'button', class: 'secondary', onclick: retry }, t().app.tryAgain) : null,
  );
}

export function pageHeading(title: string, ...rest: (Node | string | null)[]): HTMLElement {
  return h('div', { class: 'page-head' }, h('h1', { tabindex: -1 }, title), ...rest);
}
