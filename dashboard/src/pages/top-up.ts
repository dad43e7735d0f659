// Top up: one form per load, one idempotency key per form. The button locks
// on the first click and the key makes any repeat (double-click, retry after
// a network error) return the first result instead of adding again.
import { ApiError, gql } from '../api.js';
import { pageHeading, roleName, type PageContext } from '../context.js';
import { h, text } from '../dom.js';
import { formatCount } from '../format.js';
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
  ctx.main.append(loading('the account'));
  const { account } = await gql<{ account: AccountInfo }>(ACCOUNT, { id: accountId });
  if (!ctx.isCurrent()) return;
  ctx.main.replaceChildren(
    h('p', { class: 'crumbs' }, h('a', { href: href(['accounts']) }, 'Accounts'), ' / ', h('a', { href: href(['accounts', account.id]) }, text(account.name)), ' / Top up'),
    pageHeading('Top up credits'),
  );
  if (ctx.me.role === 'VIEWER') {
    ctx.main.append(
      h('p', { class: 'notice warn' }, `You are signed in with the ${roleName(ctx.me.role)} role, which can look but cannot top up. Top-ups need the support or admin role.`),
    );
  }
  ctx.main.append(topUpForm(ctx, account));
}

function topUpForm(ctx: PageContext, account: AccountInfo): HTMLElement {
  const key = newIdempotencyKey();
  const credits = h('input', { id: 'credits', name: 'credits', type: 'number', min: 1, max: MAX_TOP_UP, step: 1, required: true, inputmode: 'numeric' });
  const reason = h('input', { id: 'reason', name: 'reason', type: 'text', required: true, maxlength: 500, autocomplete: 'off', 'aria-describedby': 'reason-hint' });
  const submit = h('button', { type: 'submit' }, 'Top up');
  const result = h('div', { id: 'top-up-result', 'aria-live': 'polite' });
  const balance = h('strong', { 'data-testid': 'current-balance' }, `${formatCount(account.credits)} credits`);
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
          result.replaceChildren(h('p', { class: 'notice error', role: 'alert' }, `Credits must be a whole number from 1 to ${formatCount(MAX_TOP_UP)}.`));
          credits.focus();
          return;
        }
        if (!reason.value.trim()) {
          result.replaceChildren(h('p', { class: 'notice error', role: 'alert' }, 'Give a reason (for example the invoice or ticket number).'));
          reason.focus();
          return;
        }
        busy = true;
        submit.disabled = true;
        submit.textContent = 'Topping up…';
        result.replaceChildren(h('p', { class: 'notice' }, 'Sending the top-up…'));
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
          submit.textContent = 'Done';
          balance.textContent = `${formatCount(r.account.credits)} credits`;
          const message = r.created
            ? `Added ${formatCount(r.entry.delta)} credits to ${r.account.name}. New balance: ${formatCount(r.account.credits)} credits.`
            : `This top-up was already applied (same idempotency key); nothing was added again. Balance: ${formatCount(r.account.credits)} credits.`;
          result.replaceChildren(
            h('p', { class: 'notice ok', role: 'status', 'data-testid': 'top-up-done' }, message),
            h(
              'p',
              { class: 'buttons' },
              h('a', { class: 'button-link', href: href(['accounts', account.id]) }, 'Back to the account'),
              h('button', { type: 'button', class: 'secondary', onclick: () => form.replaceWith(topUpForm(ctx, r.account)) }, 'Start another top-up'),
            ),
          );
          ctx.announce(message);
        } catch (err) {
          busy = false;
          submit.disabled = false;
          submit.textContent = 'Top up';
          if (err instanceof ApiError && err.failure === 'forbidden') {
            result.replaceChildren(
              h('p', { class: 'notice error', role: 'alert' }, `Your role (${roleName(ctx.me.role)}) cannot top up credits. Ask someone with the support or admin role.`),
            );
          } else if (err instanceof ApiError && err.failure === 'network') {
            result.replaceChildren(
              h('p', { class: 'notice error', role: 'alert' }, `${err.message} Sending again is safe: this form keeps its idempotency key, so credits are added at most once.`),
            );
          } else {
            result.replaceChildren(ctx.problem(err));
          }
        }
      },
    },
    h('h2', { id: 'top-up-h' }, 'Add credits to ', text(account.name)),
    h('p', {}, 'Current balance: ', balance),
    h('div', { class: 'field' }, h('label', { for: 'credits' }, 'Credits to add'), credits),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'reason' }, 'Reason'),
      reason,
      h('span', { id: 'reason-hint', class: 'hint' }, 'Kept in the ledger and the admin log, e.g. “invoice INV-2025-0042 paid”.'),
    ),
    h(
      'p',
      { class: 'hint' },
      'Idempotency key for this form: ',
      h('code', { 'data-testid': 'idempotency-key' }, key),
      '. Sending this form again never adds twice.',
    ),
    h('div', { class: 'buttons' }, submit),
    result,
  );
  if (account.deletedAt) {
    submit.disabled = true;
    result.replaceChildren(h('p', { class: 'notice warn' }, 'This account is deleted; it cannot be topped up.'));
  }
  return form;
}

/** #/top-up without an account: find one first. */
async function chooseAccount(ctx: PageContext): Promise<void> {
  const search = h('input', { id: 'top-up-search', type: 'search', autocomplete: 'off' });
  const list = h('div', {});
  const find = async () => {
    list.replaceChildren(loading('accounts'));
    try {
      const data = await gql<{ accounts: { nodes: AccountInfo[] } }>(FIND, { search: search.value.trim() || null });
      if (!ctx.isCurrent()) return;
      const nodes = data.accounts.nodes;
      list.replaceChildren(
        nodes.length === 0
          ? empty('No account matches.')
          : h(
              'ul',
              { class: 'pick-list' },
              nodes.map((a) =>
                h('li', {}, h('a', { href: href(['top-up'], { account: a.id }) }, 'Top up ', text(a.name)), h('span', { class: 'muted' }, ` · ${formatCount(a.credits)} credits · `), h('code', {}, a.id)),
              ),
            ),
      );
    } catch (err) {
      if (ctx.isCurrent()) list.replaceChildren(ctx.problem(err, () => void find()));
    }
  };
  ctx.main.append(
    pageHeading('Top up credits'),
    h('p', {}, 'Choose the account to top up.'),
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
      h('label', { for: 'top-up-search' }, 'Account name or ID'),
      search,
      h('button', { type: 'submit' }, 'Find'),
    ),
    list,
  );
  await find();
}
