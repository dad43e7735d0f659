// The account page's receiving accounts: the receiver policy and the
// registered receivers, changed by support and admin (the API enforces the
// roles and every rule; this section only mirrors them and shows the API's
// own message when it refuses).
import { gql } from '../api.js';
import { canChangeCredits, describeError, roleName, type PageContext } from '../context.js';
import { h, replaceChildren, text } from '../dom.js';
import { t } from '../i18n/index.js';
import { badge, dataTable, empty, loading, time } from '../ui.js';
import { BANK_CODES, bankLabel } from '../vocabulary.js';

type Policy = 'OFF' | 'REPORT' | 'REQUIRE';

interface Receiver {
  id: string;
  kind: 'BANK' | 'PROMPTPAY';
  bankCode: string | null;
  number: string;
  proxyType: string | null;
  name: string | null;
  nameEn: string | null;
  label: string | null;
  active: boolean;
  createdAt: string;
}

const QUERY = `query Receivers($id: ID!) { account(id: $id) { id deletedAt receiverPolicy receivers { id kind bankCode number proxyType name nameEn label active createdAt } } }`;
const SET_POLICY = `mutation ($accountId: ID!, $policy: ReceiverPolicy!) { setReceiverPolicy(accountId: $accountId, policy: $policy) { id } }`;
const ADD = `mutation ($accountId: ID!, $bankCode: String, $accountNumber: String, $promptPay: String, $name: String, $nameEn: String, $label: String) {
  addReceiver(accountId: $accountId, bankCode: $bankCode, accountNumber: $accountNumber, promptPay: $promptPay, name: $name, nameEn: $nameEn, label: $label) { id }
}`;
const SET_ACTIVE = `mutation ($accountId: ID!, $receiverId: ID!, $active: Boolean!) { setReceiverActive(accountId: $accountId, receiverId: $receiverId, active: $active) { id } }`;
const REMOVE = `mutation ($accountId: ID!, $receiverId: ID!) { removeReceiver(accountId: $accountId, receiverId: $receiverId) { id } }`;

const POLICIES: Policy[] = ['OFF', 'REPORT', 'REQUIRE'];

/** The section; it loads and reloads itself after each change. */
export function receiversSection(ctx: PageContext, accountId: string): HTMLElement {
  const m = t().receivers;
  const body = h('div', {}, loading(m.loading));
  const section = h('section', { 'aria-labelledby': 'receivers-h', 'data-testid': 'receivers' }, h('h2', { id: 'receivers-h' }, m.heading), body);
  const result = h('div', { 'aria-live': 'polite' });

  const reload = async () => {
    const { account } = await gql<{ account: { deletedAt: string | null; receiverPolicy: Policy; receivers: Receiver[] } }>(QUERY, { id: accountId });
    if (!ctx.isCurrent()) return;
    const editable = canChangeCredits(ctx.me) && account.deletedAt === null;
    replaceChildren(body, h('p', { class: 'hint' }, m.explain), policyForm(account.receiverPolicy, editable), list(account.receivers, editable), editable ? addForm() : gatedNotice(), result);
  };

  /** Runs a change; the API's refusal (bad input, the last active receiver…) is shown as it says it. */
  const change = async (query: string, variables: Record<string, unknown>, done: string) => {
    try {
      await gql(query, { accountId, ...variables });
      await reload();
      result.replaceChildren(h('p', { class: 'notice ok', role: 'status' }, done));
      ctx.announce(done);
    } catch (err) {
      result.replaceChildren(h('p', { class: 'notice error', role: 'alert', 'data-testid': 'receivers-error' }, describeError(err, ctx.me)));
    }
  };

  const policyForm = (current: Policy, editable: boolean) => {
    const select = h('select', { id: 'receiver-policy', name: 'policy', disabled: !editable }, POLICIES.map((p) => h('option', { value: p, selected: p === current }, m.policies[p])));
    return h(
      'form',
      {
        class: 'inline-form',
        onsubmit: (event: SubmitEvent) => {
          event.preventDefault();
          void change(SET_POLICY, { policy: select.value }, m.policySaved(m.policies[select.value] ?? select.value));
        },
      },
      h('label', { for: 'receiver-policy' }, m.policyLabel),
      select,
      editable ? h('button', { type: 'submit' }, m.savePolicy) : null,
      h('span', { class: 'hint', 'data-testid': 'receiver-policy' }, m.policyHints[current]),
    );
  };

  const list = (receivers: Receiver[], editable: boolean) => {
    if (receivers.length === 0) return empty(m.none);
    return dataTable(
      m.caption,
      [{ label: m.receiver }, { label: m.name }, { label: m.label }, { label: m.state }, { label: m.created }, ...(editable ? [{ label: m.actions }] : [])],
      receivers.map((r) => [
        h('span', {}, r.kind === 'BANK' ? `${bankLabel(r.bankCode ?? '')} ` : `PromptPay ${m.proxyTypes[r.proxyType ?? ''] ?? r.proxyType} `, h('code', {}, r.number)),
        text([r.name, r.nameEn].filter((n) => n !== null).join(' / ')),
        r.label ? text(r.label) : '',
        r.active ? badge(m.active, 'ok') : badge(m.inactive, 'neutral'),
        time(r.createdAt),
        ...(editable
          ? [
              h(
                'span',
                { class: 'buttons' },
                h('button', { type: 'button', class: 'secondary', onclick: () => void change(SET_ACTIVE, { receiverId: r.id, active: !r.active }, m.changed) }, r.active ? m.deactivate : m.activate),
                h('button', { type: 'button', class: 'secondary', onclick: () => void change(REMOVE, { receiverId: r.id }, m.removed) }, m.remove),
              ),
            ]
          : []),
      ]),
    );
  };

  const addForm = () => {
    const kind = h('select', { id: 'receiver-kind', name: 'kind' }, h('option', { value: 'BANK' }, m.bankAccount), h('option', { value: 'PROMPTPAY' }, 'PromptPay'));
    const bank = h('select', { id: 'receiver-bank', name: 'bank' }, BANK_CODES.map((code) => h('option', { value: code }, bankLabel(code))));
    const number = h('input', { id: 'receiver-number', name: 'number', type: 'text', required: true, autocomplete: 'off', inputmode: 'numeric', 'aria-describedby': 'receiver-number-hint' });
    const name = h('input', { id: 'receiver-name', name: 'name', type: 'text', autocomplete: 'off', maxlength: 120 });
    const nameEn = h('input', { id: 'receiver-name-en', name: 'nameEn', type: 'text', autocomplete: 'off', maxlength: 120 });
    const label = h('input', { id: 'receiver-label', name: 'label', type: 'text', autocomplete: 'off', maxlength: 80 });
    const numberHint = h('span', { id: 'receiver-number-hint', class: 'hint' }, m.accountHint);
    const bankField = h('div', { class: 'field' }, h('label', { for: 'receiver-bank' }, m.bank), bank);
    kind.addEventListener('change', () => {
      bankField.hidden = kind.value !== 'BANK';
      numberHint.textContent = kind.value === 'BANK' ? m.accountHint : m.promptPayHint;
    });
    const value = (input: HTMLInputElement) => input.value.trim() || null;
    return h(
      'form',
      {
        class: 'card',
        'aria-labelledby': 'receiver-add-h',
        onsubmit: (event: SubmitEvent) => {
          event.preventDefault();
          const target = kind.value === 'BANK' ? { bankCode: bank.value, accountNumber: number.value } : { promptPay: number.value };
          void change(ADD, { ...target, name: value(name), nameEn: value(nameEn), label: value(label) }, m.added);
        },
      },
      h('h3', { id: 'receiver-add-h' }, m.add),
      h('div', { class: 'field' }, h('label', { for: 'receiver-kind' }, m.kind), kind),
      bankField,
      h('div', { class: 'field' }, h('label', { for: 'receiver-number' }, m.number), number, numberHint),
      h('div', { class: 'field' }, h('label', { for: 'receiver-name' }, m.name), name),
      h('div', { class: 'field' }, h('label', { for: 'receiver-name-en' }, m.nameEn), nameEn),
      h('div', { class: 'field' }, h('label', { for: 'receiver-label' }, m.label), label),
      h('div', { class: 'buttons' }, h('button', { type: 'submit' }, m.addButton)),
    );
  };

  const gatedNotice = () => (canChangeCredits(ctx.me) ? null : h('p', { class: 'hint' }, m.viewerNotice(roleName(ctx.me.role))));

  reload().catch((err: unknown) => body.replaceChildren(ctx.problem(err, () => void reload())));
  return section;
}
