// The audit log's filters: the form, its fields as the address names them,
// and the filter the search and the CSV download both send.
import { gql } from '../api.js';
import { h } from '../dom.js';
import { bangkokInput, dateInputExample, formatDateInput, parseDateInput } from '../format.js';
import { t } from '../i18n/index.js';
import { BANK_CODES, bankLabel, ERROR_KINDS, errorKindLabel } from '../vocabulary.js';

export type RecordType = 'verifications' | 'failures';

/** Filter names in the address; values as typed (times are Bangkok wall-clock). */
export const FIELDS = ['from', 'to', 'account', 'transactionId', 'bank', 'kind', 'upstream'] as const;
export type Field = (typeof FIELDS)[number];
const DATE_FIELDS: ReadonlySet<Field> = new Set<Field>(['from', 'to']);
const FAILURE_ONLY: Field[] = ['kind'];

const UPSTREAM_NAMES = 'query UpstreamNames { upstreams { name } }';

/** The filter form's controls, read and set by the page. */
export interface Filters {
  inputs: Record<Field, HTMLInputElement | HTMLSelectElement>;
  typeRadios: HTMLInputElement[];
  recordType(): RecordType;
  /** Switches the record type; the failures-only fields follow. */
  showType(type: RecordType): void;
  syncDisabled(): void;
  /** The fields as the address and the API take them; dates canonical. */
  values(): Record<Field, string>;
  /** False (and the field says why) when a date filter is not a date. */
  datesValid(): boolean;
  clear(): void;
}

export function filters(params: URLSearchParams): Filters {
  const inputs = filterInputs(params);
  const typeRadios = (['verifications', 'failures'] as const).map((value) =>
    h('input', { type: 'radio', name: 'type', id: `type-${value}`, value, checked: (params.get('type') ?? 'verifications') === value }),
  );
  const recordType = (): RecordType => (typeRadios[1]!.checked ? 'failures' : 'verifications');
  const syncDisabled = () => {
    const type = recordType();
    for (const f of FAILURE_ONLY) inputs[f].disabled = type !== 'failures';
  };
  syncDisabled();
  return {
    inputs,
    typeRadios,
    recordType,
    syncDisabled,
    showType: (type) => {
      typeRadios[type === 'failures' ? 1 : 0]!.checked = true;
      syncDisabled();
    },
    // Dates are typed in the chosen language's form and kept canonical (see formatDateInput).
    values: () =>
      Object.fromEntries(FIELDS.map((f) => [f, inputs[f].disabled ? '' : DATE_FIELDS.has(f) ? (parseDateInput(inputs[f].value) ?? '') : inputs[f].value.trim()])) as Record<Field, string>,
    datesValid: () => {
      let valid = true;
      for (const f of DATE_FIELDS) {
        const input = inputs[f] as HTMLInputElement;
        const bad = parseDateInput(input.value) === null;
        input.setCustomValidity(bad ? t().format.badDateInput(dateInputExample()) : '');
        if (bad && valid) input.reportValidity();
        valid &&= !bad;
      }
      return valid;
    },
    clear: () => {
      for (const f of FIELDS) inputs[f].value = '';
    },
  };
}

/** The form: record type, fields, and the search, clear and download buttons. */
export function filterForm(f: Filters, actions: { search: () => void; download: () => void }): HTMLElement {
  const m = t().audit;
  const { inputs, typeRadios } = f;
  return h(
    'form',
    {
      class: 'filters card',
      'aria-labelledby': 'filters-h',
      onsubmit: (event: SubmitEvent) => {
        event.preventDefault();
        actions.search();
      },
    },
    h('h2', { id: 'filters-h' }, m.filters),
    h(
      'fieldset',
      { class: 'type', onchange: f.syncDisabled },
      h('legend', {}, m.show),
      h('span', {}, typeRadios[0], h('label', { for: 'type-verifications' }, m.typeVerifications)),
      h('span', {}, typeRadios[1], h('label', { for: 'type-failures' }, m.typeFailures)),
    ),
    h(
      'div',
      { class: 'fields' },
      field('from', m.from, inputs.from),
      field('to', m.to, inputs.to),
      field('account', m.account, inputs.account),
      field('upstream', m.upstream, inputs.upstream),
      field('transactionId', m.transactionId, inputs.transactionId),
      field('bank', m.bank, inputs.bank),
      field('kind', m.kind, inputs.kind, m.failuresOnly),
      h(
        'div',
        { class: 'buttons' },
        h('button', { type: 'submit' }, m.search),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            onclick: () => {
              f.clear();
              actions.search();
            },
          },
          m.clear,
        ),
        h('button', { type: 'button', class: 'secondary', onclick: actions.download }, m.download),
      ),
    ),
  );
}

/** The filter both record types take, as the API names it (the search and the download send the same). */
export function recordFilter(v: Record<Field, string>) {
  return {
    accountId: v.account || null,
    from: bangkokInput(v.from),
    to: bangkokInput(v.to),
    upstream: v.upstream || null,
    transactionId: v.transactionId || null,
    sendingBank: v.bank || null,
  };
}

export async function fillUpstreamNames(input: HTMLInputElement | HTMLSelectElement): Promise<void> {
  try {
    const data = await gql<{ upstreams: { name: string }[] }>(UPSTREAM_NAMES);
    input.after(h('datalist', { id: 'upstream-names' }, data.upstreams.map((u) => h('option', { value: u.name }))));
  } catch {
    // Suggestions only; the field still takes any name.
  }
}

function filterInputs(params: URLSearchParams): Record<Field, HTMLInputElement | HTMLSelectElement> {
  const value = (f: Field) => params.get(f) ?? '';
  const input = (f: Field, attrs: Record<string, string> = {}) => h('input', { id: `f-${f}`, name: f, value: value(f), autocomplete: 'off', ...attrs });
  const m = t().audit;
  const bank = h('select', { id: 'f-bank', name: 'bank' }, h('option', { value: '' }, m.anyBank), BANK_CODES.map((code) => h('option', { value: code }, bankLabel(code))));
  bank.value = value('bank');
  const kind = h('select', { id: 'f-kind', name: 'kind' }, h('option', { value: '' }, m.anyKind), ERROR_KINDS.map((k) => h('option', { value: k }, errorKindLabel(k))));
  kind.value = value('kind');
  return {
    from: dateInput('from', value('from')),
    to: dateInput('to', value('to')),
    account: input('account', { placeholder: 'acc_…', spellcheck: 'false' }),
    transactionId: input('transactionId', { spellcheck: 'false' }),
    bank,
    kind,
    upstream: input('upstream', { list: 'upstream-names', spellcheck: 'false' }),
  };
}

/** A Bangkok date-time typed as the chosen language writes it (Thai: Buddhist era), not the browser's mm/dd/yyyy picker. */
function dateInput(name: 'from' | 'to', canonical: string): HTMLInputElement {
  return h('input', {
    id: `f-${name}`,
    name,
    value: formatDateInput(canonical),
    autocomplete: 'off',
    inputmode: 'numeric',
    placeholder: t().format.dateInputPlaceholder,
    title: t().format.badDateInput(dateInputExample()),
    oninput: (event: Event) => (event.target as HTMLInputElement).setCustomValidity(''),
  });
}

/** `note` says which record type a filter applies to; it is part of the label so rows stay aligned. */
function field(name: Field, label: string, control: HTMLElement, note?: string): HTMLElement {
  return h('div', { class: 'field' }, h('label', { for: `f-${name}` }, label, note ? h('span', { class: 'label-note' }, ` · ${note}`) : null), control);
}
