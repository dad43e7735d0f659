// Accounts: search by name or id, balance, usage and keys at a glance.
import { gql } from '../api.js';
import { canChangeCredits, pageHeading, roleGatedLink, type PageContext } from '../context.js';
import { h, text } from '../dom.js';
import { formatCount } from '../format.js';
import { t } from '../i18n/index.js';
import { href } from '../router.js';
import { CursorPager, dataTable, empty, loading, time } from '../ui.js';

interface AccountRow {
  id: string;
  name: string;
  credits: number;
  heldCredits: number;
  usage: number;
  createdAt: string;
  keys: { id: string; prefix: string; revokedAt: string | null }[];
}

const QUERY = `query Accounts($search: String, $after: String) {
  accounts(search: $search, first: 20, after: $after) {
    nodes { id name credits heldCredits usage createdAt keys { id prefix revokedAt } }
    pageInfo { endCursor hasNextPage }
  }
}`;

export async function accountsPage(ctx: PageContext): Promise<void> {
  const m = t().accounts;
  const search = h('input', { id: 'account-search', name: 'search', type: 'search', value: ctx.params.get('search') ?? '', autocomplete: 'off' });
  const results = h('section', { 'aria-labelledby': 'accounts-results', class: 'results' });
  const status = h('p', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
  const pager = new CursorPager();

  const load = async () => {
    const term = search.value.trim();
    results.replaceChildren(h('h2', { id: 'accounts-results' }, term ? m.matching(term) : m.all), loading(m.loading));
    try {
      const data = await gql<{ accounts: { nodes: AccountRow[]; pageInfo: { endCursor: string | null; hasNextPage: boolean } } }>(QUERY, {
        search: term || null,
        after: pager.after,
      });
      if (!ctx.isCurrent()) return;
      const { nodes, pageInfo } = data.accounts;
      results.lastChild?.remove();
      if (nodes.length === 0) {
        results.append(empty(term ? m.noMatch(term) : m.noneYet));
        status.textContent = m.noneFound;
        return;
      }
      results.append(
        dataTable(
          m.caption,
          [
            { label: m.name },
            { label: m.id },
            { label: m.balance, numeric: true },
            { label: m.held, numeric: true },
            { label: m.verified, numeric: true },
            { label: m.keys },
            { label: m.created },
            { label: m.actions },
          ],
          nodes.map((a) => [
            h('a', { href: href(['accounts', a.id]) }, text(a.name)),
            h('code', {}, a.id),
            formatCount(a.credits),
            formatCount(a.heldCredits),
            formatCount(a.usage),
            keysSummary(a.keys),
            time(a.createdAt),
            roleGatedLink(ctx.me, canChangeCredits(ctx.me), { href: href(['top-up'], { account: a.id }), class: 'button-link' }, m.topUp, h('span', { class: 'visually-hidden' }, ` ${a.name}`)),
          ]),
          { captionHidden: true },
        ),
        pager.controls(t().nav.accounts, pageInfo.hasNextPage ? pageInfo.endCursor : null, () => void load()),
      );
      status.textContent = m.shown(nodes.length);
    } catch (err) {
      if (!ctx.isCurrent()) return;
      results.lastChild?.remove();
      results.append(ctx.problem(err, () => void load()));
    }
  };

  const form = h(
    'form',
    {
      role: 'search',
      class: 'inline-form',
      onsubmit: (event: SubmitEvent) => {
        event.preventDefault();
        pager.reset();
        // Keep the search in the address (shareable) without re-rendering the page.
        history.replaceState(null, '', href(['accounts'], { search: search.value.trim() }));
        void load();
      },
    },
    h('label', { for: 'account-search' }, m.searchLabel),
    search,
    h('button', { type: 'submit' }, m.search),
  );

  ctx.main.append(pageHeading(t().nav.accounts), form, status, results);
  await load();
}

function keysSummary(keys: AccountRow['keys']): HTMLElement {
  const m = t().accounts;
  const live = keys.filter((k) => !k.revokedAt);
  if (keys.length === 0) return h('span', { class: 'muted' }, m.keysNone);
  return h(
    'span',
    {},
    m.keysActive(live.length),
    keys.length > live.length ? h('span', { class: 'muted' }, m.keysRevoked(keys.length - live.length)) : null,
    live.length ? h('br') : null,
    live.slice(0, 2).map((k, i) => [i ? ', ' : '', h('code', {}, `${k.prefix}…`)]),
    live.length > 2 ? h('span', { class: 'muted' }, ` +${live.length - 2}`) : null,
  );
}
