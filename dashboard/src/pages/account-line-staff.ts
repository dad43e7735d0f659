// The account page's LINE staff targets (docs/line.md#staff-notifications):
// who at the shop is pushed the slips that need a person, per channel, and
// the groups the bot was added to (candidates). Support and admin add and
// remove targets; the API checks every rule and its refusal is shown as is.
import { gql } from '../api.js';
import { canChangeCredits, describeError, type PageContext } from '../context.js';
import { h, replaceChildren } from '../dom.js';
import { t } from '../i18n/index.js';
import { dataTable, empty, loading, time } from '../ui.js';

interface Channel {
  channelId: string;
  staffTargets: { targetId: string; createdAt: string }[];
  groups: { groupId: string; kind: string; leftAt: string | null }[];
}

const QUERY = `query LineStaff($id: ID!) { account(id: $id) { deletedAt lineChannels { channelId staffTargets { targetId createdAt } groups { groupId kind leftAt } } } }`;
const ADD = `mutation ($channelId: String!, $targetId: String!) { addLineStaffTarget(channelId: $channelId, targetId: $targetId) { targetId } }`;
const REMOVE = `mutation ($channelId: String!, $targetId: String!) { removeLineStaffTarget(channelId: $channelId, targetId: $targetId) { channelId } }`;

export function lineStaffSection(ctx: PageContext, accountId: string): HTMLElement {
  const m = t().lineStaff;
  const body = h('div', {}, loading(m.loading));
  const section = h('section', { 'aria-labelledby': 'line-staff-h', 'data-testid': 'line-staff' }, h('h2', { id: 'line-staff-h' }, m.heading), body);
  const result = h('div', { 'aria-live': 'polite' });

  const reload = async () => {
    const { account } = await gql<{ account: { deletedAt: string | null; lineChannels: Channel[] } }>(QUERY, { id: accountId });
    if (!ctx.isCurrent()) return;
    const editable = canChangeCredits(ctx.me) && account.deletedAt === null;
    if (account.lineChannels.length === 0) return replaceChildren(body, empty(m.noChannel));
    replaceChildren(body, h('p', { class: 'hint' }, m.explain), ...account.lineChannels.map((c) => channel(c, editable)), result);
  };

  const change = async (query: string, variables: Record<string, unknown>, done: string) => {
    try {
      await gql(query, variables);
      await reload();
      result.replaceChildren(h('p', { class: 'notice ok', role: 'status' }, done));
      ctx.announce(done);
    } catch (err) {
      result.replaceChildren(h('p', { class: 'notice error', role: 'alert', 'data-testid': 'line-staff-error' }, describeError(err, ctx.me)));
    }
  };

  const channel = (c: Channel, editable: boolean) => {
    const inputId = `line-staff-${c.channelId}`;
    const listId = `${inputId}-groups`;
    const input = h('input', { id: inputId, name: 'targetId', type: 'text', required: true, autocomplete: 'off', list: listId, maxlength: 33 });
    const targets =
      c.staffTargets.length === 0
        ? empty(m.none)
        : dataTable(
            m.caption(c.channelId),
            [{ label: m.target }, { label: m.added }, ...(editable ? [{ label: m.actions }] : [])],
            c.staffTargets.map((s) => [
              h('code', {}, s.targetId),
              time(s.createdAt),
              ...(editable ? [h('button', { type: 'button', class: 'secondary', onclick: () => void change(REMOVE, { channelId: c.channelId, targetId: s.targetId }, m.removed) }, m.remove)] : []),
            ]),
          );
    const inGroups = c.groups.filter((g) => g.leftAt === null);
    return h(
      'div',
      { class: 'card', 'data-channel': c.channelId },
      h('h3', {}, m.channel(c.channelId)),
      targets,
      inGroups.length > 0 ? h('p', { class: 'hint' }, m.groups, ' ', ...inGroups.map((g) => h('code', {}, g.groupId, ' '))) : h('p', { class: 'hint' }, m.noGroups),
      editable
        ? h(
            'form',
            {
              class: 'inline-form',
              onsubmit: (event: SubmitEvent) => {
                event.preventDefault();
                void change(ADD, { channelId: c.channelId, targetId: input.value.trim() }, m.addedDone);
              },
            },
            h('label', { for: inputId }, m.addLabel),
            input,
            h('datalist', { id: listId }, inGroups.map((g) => h('option', { value: g.groupId }))),
            h('button', { type: 'submit' }, m.add),
          )
        : null,
    );
  };

  void reload().catch((err: unknown) => replaceChildren(body, h('p', { class: 'notice error', role: 'alert' }, describeError(err, ctx.me))));
  return section;
}
