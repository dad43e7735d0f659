// Accounts: search by name or id, balance, usage and keys at a glance.
import { gql } from '../api.js';
import { pageHeading, type PageContext } from '../context.js';
import { h, text } from '../dom.js';
import { formatCount } from '../format.js';
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
  const search = h('input', { id: 'account-search', name: 'search', type: 'search', value: ctx.params.get('search') ?? '', autocomplete: 'off' });
  const results = h('section', { 'aria-labelledby': 'accounts-results', class: 'results' });
  const status = h('p', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
  const pager = new CursorPager();

  const load = async () => {
    const term = search.value.trim();
    results.replaceChildren(h('h2', { id: 'accounts-results' }, term ? `Accounts matching “${term}”` : 'All accounts'), loading('accounts'));
    try {
      const data = await gql<{ accounts: { nodes: AccountRow[]; pageInfo: { endCursor: string | null; hasNextPage: boolean } } }>(QUERY, {
        search: term || null,
        after: pager.after,
      });
      if (!ctx.isCurrent()) return;
      const { nodes, pageInfo } = data.accounts;
      results.lastChild?.remove();
      if (nodes.length === 0) {
        results.append(empty(term ? `No account name or id matches “${term}”.` : 'No accounts yet. Create one with npx slipgate accounts create.'));
        status.textContent = 'No accounts found.';
        return;
      }
      results.append(
        dataTable(
          'Accounts, newest first',
          [{ label: 'Name' }, { label: 'Account ID' }, { label: 'Balance (credits)', numeric: true }, { label: 'Held', numeric: true }, { label: 'Verified (all time)', numeric: true }, { label: 'API keys' }, { label: 'Created (Bangkok)' }, { label: 'Actions' }],
          nodes.map((a) => [
            h('a', { href: href(['accounts', a.id]) }, text(a.name)),
            h('code', {}, a.id),
            formatCount(a.credits),
            formatCount(a.heldCredits),
            formatCount(a.usage),
            keysSummary(a.keys),
            time(a.createdAt),
            h('a', { href: href(['top-up'], { account: a.id }), class: 'button-link' }, 'Top up', h('span', { class: 'visually-hidden' }, ` ${a.name}`)),
          ]),
          { captionHidden: true },
        ),
        pager.controls('Accounts', pageInfo.hasNextPage ? pageInfo.endCursor : null, () => void load()),
      );
      status.textContent = `${nodes.length} ${nodes.length === 1 ? 'account' : 'accounts'} shown.`;
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
    h('label', { for: 'account-search' }, 'Search by name or account ID'),
    search,
    h('button', { type: 'submit' }, 'Search'),
  );

  ctx.main.append(pageHeading('Accounts'), form, status, results);
  await load();
}

function keysSummary(keys: AccountRow['keys']): HTMLElement {
  const live = keys.filter((k) => !k.revokedAt);
  if (keys.length === 0) return h('span', { class: 'muted' }, 'none');
  return h(
    'span',
    {},
    `${live.length} active`,
    keys.length > live.length ? h('span', { class: 'muted' }, ` (+${keys.length - live.length} revoked)`) : null,
    live.length ? h('br') : null,
    live.slice(0, 2).map((k, i) => [i ? ', ' : '', h('code', {}, `${k.prefix}…`)]),
    live.length > 2 ? h('span', { class: 'muted' }, ` +${live.length - 2}`) : null,
  );
}
