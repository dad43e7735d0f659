// The shell: sign-in, header with navigation, and one page at a time picked
// from the address hash. Pages live in pages/.
import { ApiError, gql } from './api.js';
import { describeError, errorBox, roleName, type Me, type PageContext } from './context.js';
import { h, replaceChildren, text } from './dom.js';
import { applyLocale, t, type Locale } from './i18n/index.js';
import { languageSwitch } from './lang-switch.js';
import { accountPage } from './pages/account.js';
import { accountsPage } from './pages/accounts.js';
import { auditPage } from './pages/audit.js';
import { signInPage } from './pages/sign-in.js';
import { topUpPage } from './pages/top-up.js';
import { upstreamsPage } from './pages/upstreams.js';
import { currentRoute, href } from './router.js';
import { clearToken, getToken, setToken } from './session.js';
import './styles.css';

const ME_QUERY = 'query Me { me { id name role prefix } }';

const NAV: { label: () => string; section: string }[] = [
  { label: () => t().nav.accounts, section: 'accounts' },
  { label: () => t().nav.audit, section: 'audit' },
  { label: () => t().nav.topUp, section: 'top-up' },
  { label: () => t().nav.upstreams, section: 'upstreams' },
];

const root = document.getElementById('app')!;
const announcer = h('div', { id: 'announcer', class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
let me: Me | null = null;
/** Bumped on every render so a slow page cannot draw over a newer one. */
let generation = 0;

function announce(message: string): void {
  // Cleared first so the same sentence twice is read twice.
  announcer.textContent = '';
  window.setTimeout(() => (announcer.textContent = message), 50);
}

function showSignIn(message?: string, focus = true): void {
  me = null;
  generation++;
  document.title = t().app.title(t().signIn.title);
  replaceChildren(root, signInPage({ message, onToken: signIn, languageSwitch: languageSwitch(languageChanged) }), announcer);
  if (focus) root.querySelector<HTMLInputElement>('#token')?.focus();
}

/** Everything is drawn again in the new language; focus stays on the switch. */
function languageChanged(next: Locale): void {
  if (me) render(false);
  else showSignIn(undefined, false);
  root.querySelector<HTMLElement>(`.lang-switch [data-locale="${next}"]`)?.focus();
}

/** Checks a token with `me`; resolves to an error message or null. */
async function signIn(token: string): Promise<string | null> {
  try {
    const data = await gql<{ me: Me }>(ME_QUERY, {}, token);
    setToken(token);
    me = data.me;
    if (!location.hash || location.hash === '#') history.replaceState(null, '', href(['accounts']));
    render(true);
    return null;
  } catch (err) {
    if (err instanceof ApiError && err.failure === 'unauthorized') {
      return t().signIn.rejected;
    }
    return err instanceof ApiError ? err.message : String(err);
  }
}

function signOut(): void {
  clearToken();
  showSignIn(t().signIn.signedOut);
}

/** Ends the session after a 401 anywhere. */
function sessionEnded(): void {
  clearToken();
  showSignIn(t().signIn.sessionEnded);
}

function header(current: string, who: Me): HTMLElement {
  return h(
    'header',
    { class: 'top' },
    h('a', { class: 'skip', href: '#main', onclick: skipToMain }, t().app.skip),
    h('div', { class: 'brand' }, 'slipgate', h('span', {}, t().app.brandSuffix)),
    h(
      'nav',
      { 'aria-label': t().app.mainNav },
      h(
        'ul',
        {},
        NAV.map((item) =>
          h('li', {}, h('a', { href: href([item.section]), 'aria-current': item.section === current ? 'page' : null }, item.label())),
        ),
      ),
    ),
    h(
      'div',
      { class: 'who' },
      h('span', {}, t().app.signedInAs, text(who.name, 'strong'), ' ', h('span', { class: 'role' }, roleName(who.role))),
      who.role === 'ADMIN' ? graphiqlForm() : null,
      h('button', { type: 'button', class: 'secondary', onclick: signOut }, t().app.signOut),
      languageSwitch(languageChanged),
    ),
  );
}

/**
 * GraphiQL in a new tab with this session's token: a browser cannot add an
 * Authorization header to a page it opens, so the token is posted in the
 * form's body (relative action: the admin listener, behind any path prefix)
 * and put in the form only for the moment it is sent.
 */
function graphiqlForm(): HTMLElement {
  const token = h('input', { type: 'hidden', name: 'token' });
  return h(
    'form',
    {
      method: 'post',
      action: 'graphiql',
      target: '_blank',
      class: 'graphiql',
      onsubmit: () => {
        token.value = getToken() ?? '';
        setTimeout(() => (token.value = ''), 0);
      },
    },
    token,
    h('button', { type: 'submit', class: 'secondary', title: t().app.graphiqlHint }, t().app.graphiql),
  );
}

function skipToMain(event: Event): void {
  // The hash holds the route, so the skip link moves focus itself.
  event.preventDefault();
  document.getElementById('main')?.focus();
}

function render(moveFocus: boolean): void {
  if (!me) return;
  const who = me;
  const mine = ++generation;
  const route = currentRoute();
  const section = route.path[0] ?? 'accounts';
  const main = h('main', { id: 'main', tabindex: -1 });
  replaceChildren(root, header(section, who), main, announcer);

  const ctx: PageContext = {
    main,
    path: route.path,
    params: route.params,
    me: who,
    announce,
    isCurrent: () => mine === generation,
    problem: (err, retry) => {
      if (err instanceof ApiError && err.failure === 'unauthorized') {
        if (mine === generation) sessionEnded();
        return h('div');
      }
      return errorBox(describeError(err, who), retry);
    },
  };

  const page = pageFor(section, route.path);
  document.title = t().app.title(page.title);
  Promise.resolve(page.show(ctx))
    .catch((err: unknown) => {
      if (!ctx.isCurrent()) return;
      for (const el of main.querySelectorAll('.loading')) el.remove();
      main.append(ctx.problem(err, () => render(true)));
    })
    .finally(() => {
      if (!ctx.isCurrent()) return;
      if (moveFocus) main.querySelector<HTMLElement>('h1')?.focus();
      announce(t().app.pageAnnounced(page.title));
    });
}

function pageFor(section: string, path: string[]): { title: string; show: (ctx: PageContext) => Promise<void> | void } {
  const nav = t().nav;
  switch (section) {
    case 'accounts':
      return path[1] ? { title: nav.account, show: accountPage } : { title: nav.accounts, show: accountsPage };
    case 'audit':
      return { title: nav.audit, show: auditPage };
    case 'top-up':
      return { title: nav.topUp, show: topUpPage };
    case 'upstreams':
      return { title: nav.upstreams, show: upstreamsPage };
    default:
      return {
        title: t().app.notFound,
        show: (ctx) => {
          ctx.main.append(h('h1', { tabindex: -1 }, t().app.pageNotFound), h('p', {}, h('a', { href: href(['accounts']) }, t().app.goToAccounts)));
        },
      };
  }
}

async function boot(): Promise<void> {
  const token = getToken();
  if (!token) return showSignIn();
  replaceChildren(root, h('p', { class: 'loading', role: 'status' }, t().app.loading), announcer);
  try {
    me = (await gql<{ me: Me }>(ME_QUERY, {}, token)).me;
    render(false);
  } catch (err) {
    if (err instanceof ApiError && err.failure === 'unauthorized') return sessionEnded();
    replaceChildren(
      root,
      h('main', { id: 'main' }, h('h1', {}, t().app.name), errorBox(err instanceof ApiError ? err.message : String(err), () => void boot())),
      announcer,
    );
  }
}

window.addEventListener('hashchange', () => {
  if (me) render(true);
});
applyLocale();
void boot();
