// Top up: one form per load, one idempotency key per form. The button locks
// on the first click and the key makes any repeat (double-click, retry after
// a network error) return the first result instead of adding again.
import { ApiError, gql } from '../api.js';
import { canChangeCredits, pageHeading, roleName, type PageContext } from '../context.js';
import { h, text } from '../dom.js';
import { formatCount, formatCredits } from '../format.js';
import { t } from '../i18n/index.js';
import { newIdempotencyKey } from '../ids.js';
import { href } from '../router.js';
import { empty, loading } from '../ui.js';

interface AccountInfo {
  id: string;
  name: string;
  credits: number;
  deletedAt: string | null;
}

const ACCOUNT = 'query TopUpAccount($id: ID!) { account(id: $id) { id name credits deletedAt } }';
const FIND = 'query TopUpFind($search: String) { accounts(search: $search, first: 10) { nodes { id name credits deletedAt } } }';
const TOP_UP = `mutation TopUp($accountId: ID!, $credits: Int!, $reason: String!, $idempotencyKey: String!) {
  topUpCredits(accountId: $accountId, credits: $credits, reason: $reason, idempotencyKey: $idempotencyKey) {
    created
    account { id name credits }
    entry { id delta }
  }
}`;

const MAX_TOP_UP = 10_000_000;

export async function topUpPage(ctx: PageContext): Promise<void> {
  const accountId = ctx.params.get('account');
  if (!accountId) return chooseAccount(ctx);
  const m = t().topUp;
  ctx.main.append(loading(m.loading));
  const { account } = await gql<{ account: AccountInfo }>(ACCOUNT, { id: accountId });
  if (!ctx.isCurrent()) return;
  ctx.main.replaceChildren(
    h('p', { class: 'crumbs' }, h('a', { href: href(['accounts']) }, t().nav.accounts), ' / ', h('a', { href: href(['accounts', account.id]) }, text(account.name)), ` / ${m.crumb}`),
    pageHeading(m.title),
  );
  if (!canChangeCredits(ctx.me)) {
    ctx.main.append(h('p', { id: 'role-notice', class: 'notice warn' }, m.viewerNotice(roleName(ctx.me.role))));
  }
  ctx.main.append(topUpForm(ctx, account));
}

function topUpForm(ctx: PageContext, account: AccountInfo): HTMLElement {
  const m = t().topUp;
  const key = newIdempotencyKey();
  const credits = h('input', { id: 'credits', name: 'credits', type: 'number', min: 1, max: MAX_TOP_UP, step: 1, required: true, inputmode: 'numeric' });
  const reason = h('input', { id: 'reason', name: 'reason', type: 'text', required: true, maxlength: 500, autocomplete: 'off', 'aria-describedby': 'reason-hint' });
  const submit = h('button', { type: 'submit' }, m.submit);
  const result = h('div', { id: 'top-up-result', 'aria-live': 'polite' });
  const balance = h('strong', { 'data-testid': 'current-balance' }, formatCredits(account.credits));
  let busy = false;
  let done = false;

  const form = h(
    'form',
    {
      class: 'card narrow',
      'aria-labelledby': 'top-up-h',
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        // Set before any await: a second click in the same tick sees it.
        if (busy || done) return;
        const amount = Number(credits.value);
        if (!Number.isSafeInteger(amount) || amount < 1 || amount > MAX_TOP_UP) {
          result.replaceChildren(h('p', { class: 'notice error', role: 'alert' }, m.badCredits(formatCount(MAX_TOP_UP))));
          credits.focus();
          return;
        }
        if (!reason.value.trim()) {
          result.replaceChildren(h('p', { class: 'notice error', role: 'alert' }, m.needReason));
          reason.focus();
          return;
        }
        busy = true;
        submit.disabled = true;
        submit.textContent = m.sending;
        result.replaceChildren(h('p', { class: 'notice' }, m.sendingNotice));
        try {
          const data = await gql<{ topUpCredits: { created: boolean; account: AccountInfo; entry: { id: string; delta: number } } }>(TOP_UP, {
            accountId: account.id,
            credits: amount,
            reason: reason.value.trim(),
            idempotencyKey: key,
          });
          const r = data.topUpCredits;
          done = true;
          credits.disabled = true;
          reason.disabled = true;
          submit.textContent = m.done;
          balance.textContent = formatCredits(r.account.credits);
          const message = r.created
            ? m.added(formatCount(r.entry.delta), r.account.name, formatCount(r.account.credits))
            : m.repeated(formatCount(r.account.credits));
          result.replaceChildren(
            h('p', { class: 'notice ok', role: 'status', 'data-testid': 'top-up-done' }, message),
            h(
              'p',
              { class: 'buttons' },
              h('a', { class: 'button-link', href: href(['accounts', account.id]) }, m.back),
              h('button', { type: 'button', class: 'secondary', onclick: () => form.replaceWith(topUpForm(ctx, r.account)) }, m.another),
            ),
          );
          ctx.announce(message);
        } catch (err) {
          busy = false;
          submit.disabled = false;
          submit.textContent = m.submit;
          if (err instanceof ApiError && err.failure === 'forbidden') {
            result.replaceChildren(h('p', { class: 'notice error', role: 'alert' }, m.forbidden(roleName(ctx.me.role))));
          } else if (err instanceof ApiError && err.failure === 'network') {
            result.replaceChildren(h('p', { class: 'notice error', role: 'alert' }, m.retrySafe(err.message)));
          } else {
            result.replaceChildren(ctx.problem(err));
          }
        }
      },
    },
    h('h2', { id: 'top-up-h' }, m.heading, text(account.name)),
    h('p', {}, m.current, balance),
    h('div', { class: 'field' }, h('label', { for: 'credits' }, m.creditsLabel), credits),
    h('div', { class: 'field' }, h('label', { for: 'reason' }, m.reasonLabel), reason, h('span', { id: 'reason-hint', class: 'hint' }, m.reasonHint)),
    h('p', { class: 'hint' }, m.keyBefore, h('code', { 'data-testid': 'idempotency-key' }, key), m.keyAfter),
    h('div', { class: 'buttons' }, submit),
    result,
  );
  if (account.deletedAt) {
    submit.disabled = true;
    result.replaceChildren(h('p', { class: 'notice warn' }, m.deleted));
  }
  if (!canChangeCredits(ctx.me)) {
    // The notice above the form says why; the controls say it to screen readers.
    for (const control of [credits, reason, submit]) {
      control.disabled = true;
      control.setAttribute('aria-describedby', 'role-notice');
    }
  }
  return form;
}

/** #/top-up without an account: find one first. */
async function chooseAccount(ctx: PageContext): Promise<void> {
  const m = t().topUp;
  const search = h('input', { id: 'top-up-search', type: 'search', autocomplete: 'off' });
  const list = h('div', {});
  const find = async () => {
    list.replaceChildren(loading(m.loadingAccounts));
    try {
      const data = await gql<{ accounts: { nodes: AccountInfo[] } }>(FIND, { search: search.value.trim() || null });
      if (!ctx.isCurrent()) return;
      const nodes = data.accounts.nodes;
      list.replaceChildren(
        nodes.length === 0
          ? empty(m.noMatch)
          : h(
              'ul',
              { class: 'pick-list' },
              nodes.map((a) =>
                h(
                  'li',
                  {},
                  h('a', { href: href(['top-up'], { account: a.id }) }, m.pick, text(a.name)),
                  h('span', { class: 'muted' }, m.pickCredits(formatCount(a.credits))),
                  h('code', {}, a.id),
                ),
              ),
            ),
      );
    } catch (err) {
      if (ctx.isCurrent()) list.replaceChildren(ctx.problem(err, () => void find()));
    }
  };
  ctx.main.append(
    pageHeading(m.title),
    h('p', {}, m.choose),
    h(
      'form',
      {
        role: 'search',
        class: 'inline-form',
        onsubmit: (event: SubmitEvent) => {
          event.preventDefault();
          void find();
        },
      },
      h('label', { for: 'top-up-search' }, m.findLabel),
      search,
      h('button', { type: 'submit' }, m.find),
    ),
    list,
  );
  await find();
}
