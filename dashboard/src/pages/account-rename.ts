// Renaming an account from its page (support and admin): the name staff read
// and the checkout page shows its customers. The page's heading, crumb and
// title follow at once; the API trims the name and records who changed it.
import { gql } from '../api.js';
import { canChangeCredits, describeError, type PageContext } from '../context.js';
import { h } from '../dom.js';
import { t } from '../i18n/index.js';

const RENAME = `mutation Rename($id: ID!, $name: String!) { renameAccount(id: $id, name: $name) { id name } }`;

/** A folded form under the heading; null for a deleted account or a viewer. */
export function renameForm(ctx: PageContext, account: { id: string; name: string; deletedAt: string | null }, shown: (name: string) => void): HTMLElement | null {
  if (account.deletedAt || !canChangeCredits(ctx.me)) return null;
  const m = t().account;
  const input = h('input', { id: 'rename-name', type: 'text', value: account.name, maxlength: '200', required: true });
  const status = h('p', { class: 'hint', role: 'status' });
  const submit = async () => {
    try {
      const { renameAccount } = await gql<{ renameAccount: { name: string } }>(RENAME, { id: account.id, name: input.value });
      shown(renameAccount.name);
      status.textContent = m.renamed(renameAccount.name);
      ctx.announce(m.renamed(renameAccount.name));
    } catch (err) {
      status.textContent = describeError(err, ctx.me);
    }
  };
  return h(
    'details',
    { class: 'rename', 'data-testid': 'rename' },
    h('summary', {}, m.rename),
    h(
      'form',
      {
        class: 'inline-form',
        onsubmit: (event: SubmitEvent) => {
          event.preventDefault();
          void submit();
        },
      },
      h('label', { for: 'rename-name' }, m.newName),
      input,
      h('button', { type: 'submit' }, m.saveName),
    ),
    status,
  );
}
