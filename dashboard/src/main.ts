// The shell: sign-in, header with navigation, and one page at a time picked
// from the address hash. Pages live in pages/.
import { ApiError, gql } from './api.js';
import { describeError, errorBox, roleName, type Me, type PageContext } from './context.js';
import { h, replaceChildren, text } from './dom.js';
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

const NAV: { label: string; section: string }[] = [
  { label: 'Accounts', section: 'accounts' },
  { label: 'Audit log', section: 'audit' },
  { label: 'Top up', section: 'top-up' },
  { label: 'Upstreams', section: 'upstreams' },
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

function showSignIn(message?: string): void {
  me = null;
  generation++;
  document.title = 'Sign in · slipgate dashboard';
  replaceChildren(root, signInPage({ message, onToken: signIn }), announcer);
  root.querySelector<HTMLInputElement>('#token')?.focus();
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
      return 'This token was not accepted: it is unknown, revoked or mistyped. Check it and try again.';
    }
    return err instanceof ApiError ? err.message : String(err);
  }
}

function signOut(): void {
  clearToken();
  showSignIn('You signed out. The token was removed from this tab.');
}

/** Ends the session after a 401 anywhere. */
function sessionEnded(): void {
  clearToken();
  showSignIn('Your session ended: the admin token is no longer accepted (expired or revoked). Sign in with a current token.');
}

function header(current: string, who: Me): HTMLElement {
  return h(
    'header',
    { class: 'top' },
    h('a', { class: 'skip', href: '#main', onclick: skipToMain }, 'Skip to content'),
    h('div', { class: 'brand' }, 'slipgate', h('span', {}, ' dashboard')),
    h(
      'nav',
      { 'aria-label': 'Main' },
      h(
        'ul',
        {},
        NAV.map((item) =>
          h('li', {}, h('a', { href: href([item.section]), 'aria-current': item.section === current ? 'page' : null }, item.label)),
        ),
      ),
    ),
    h(
      'div',
      { class: 'who' },
      h('span', {}, 'Signed in as ', text(who.name, 'strong'), ' ', h('span', { class: 'role' }, roleName(who.role))),
      h('button', { type: 'button', class: 'secondary', onclick: signOut }, 'Sign out'),
    ),
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
  document.title = `${page.title} · slipgate dashboard`;
  Promise.resolve(page.show(ctx))
    .catch((err: unknown) => {
      if (!ctx.isCurrent()) return;
      for (const el of main.querySelectorAll('.loading')) el.remove();
      main.append(ctx.problem(err, () => render(true)));
    })
    .finally(() => {
      if (!ctx.isCurrent()) return;
      if (moveFocus) main.querySelector<HTMLElement>('h1')?.focus();
      announce(`${page.title} page`);
    });
}

function pageFor(section: string, path: string[]): { title: string; show: (ctx: PageContext) => Promise<void> | void } {
  switch (section) {
    case 'accounts':
      return path[1] ? { title: 'Account', show: accountPage } : { title: 'Accounts', show: accountsPage };
    case 'audit':
      return { title: 'Audit log', show: auditPage };
    case 'top-up':
      return { title: 'Top up', show: topUpPage };
    case 'upstreams':
      return { title: 'Upstreams', show: upstreamsPage };
    default:
      return {
        title: 'Not found',
        show: (ctx) => {
          ctx.main.append(h('h1', { tabindex: -1 }, 'Page not found'), h('p', {}, h('a', { href: href(['accounts']) }, 'Go to the accounts')));
        },
      };
  }
}

async function boot(): Promise<void> {
  const token = getToken();
  if (!token) return showSignIn();
  replaceChildren(root, h('p', { class: 'loading', role: 'status' }, 'Loading…'), announcer);
  try {
    me = (await gql<{ me: Me }>(ME_QUERY, {}, token)).me;
    render(false);
  } catch (err) {
    if (err instanceof ApiError && err.failure === 'unauthorized') return sessionEnded();
    replaceChildren(
      root,
      h('main', { id: 'main' }, h('h1', {}, 'slipgate dashboard'), errorBox(err instanceof ApiError ? err.message : String(err), () => void boot())),
      announcer,
    );
  }
}

window.addEventListener('hashchange', () => {
  if (me) render(true);
});
void boot();
