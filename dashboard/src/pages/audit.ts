// The audit log: successful verifications or failed requests, with the
// GraphQL API's filters, cursor paging, and a slip-image search that reads
// the QR in the browser and looks its transaction up.
import { downloadAuditCsv, gql } from '../api.js';
import { pageHeading, type PageContext } from '../context.js';
import { h, text } from '../dom.js';
import { bangkokInput, dateInputExample, formatDateInput, formatMs, formatThb, formatTime, parseDateInput } from '../format.js';
import { t } from '../i18n/index.js';
import { href } from '../router.js';
import { readSlipImage } from '../slip-image.js';
import { badge, CursorPager, dataTable, empty, loading, time } from '../ui.js';
import { BANK_CODES, bankLabel, ERROR_KINDS, errorKindLabel } from '../vocabulary.js';

type RecordType = 'verifications' | 'failures';

/** Filter names in the address; values as typed (times are Bangkok wall-clock). */
const FIELDS = ['from', 'to', 'account', 'transactionId', 'bank', 'kind', 'upstream'] as const;
const DATE_FIELDS: ReadonlySet<Field> = new Set<Field>(['from', 'to']);
type Field = (typeof FIELDS)[number];
const FAILURE_ONLY: Field[] = ['kind'];

interface Page<T> {
  nodes: T[];
  pageInfo: { endCursor: string | null; hasNextPage: boolean };
}
interface AccountName {
  id: string;
  name: string;
}
interface Verification {
  id: string;
  transactionId: string;
  amount: number;
  sendingBank: string;
  receivingBank: string;
  upstream: string;
  latencyMs: number;
  createdAt: string;
  accountId: string;
  account: AccountName | null;
  /** Set once retention or an erasure removed the personal data. */
  redactedAt: string | null;
}
interface Failure {
  id: string;
  transactionId: string | null;
  kind: string;
  message: string;
  upstream: string | null;
  latencyMs: number | null;
  createdAt: string;
  accountId: string | null;
  account: AccountName | null;
}

const PAGE_SIZE = 25;
const VERIFICATIONS = `query Verifications($filter: VerifyTransactionFilter, $after: String) {
  verifyTransactions(filter: $filter, first: ${PAGE_SIZE}, after: $after) {
    nodes { id transactionId amount sendingBank receivingBank upstream latencyMs createdAt accountId account { id name } redactedAt }
    pageInfo { endCursor hasNextPage }
  }
}`;
const FAILURES = `query Failures($filter: RequestErrorFilter, $after: String) {
  requestErrors(filter: $filter, first: ${PAGE_SIZE}, after: $after) {
    nodes { id transactionId kind message upstream latencyMs createdAt accountId account { id name } }
    pageInfo { endCursor hasNextPage }
  }
}`;
const UPSTREAM_NAMES = 'query UpstreamNames { upstreams { name } }';
const SLIP_FAILURES = `query SlipFailures($filter: RequestErrorFilter) {
  requestErrors(filter: $filter, first: 100) { nodes { id } pageInfo { hasNextPage } }
}`;

export async function auditPage(ctx: PageContext): Promise<void> {
  const m = t().audit;
  const pager = new CursorPager();
  const inputs = filterInputs(ctx.params);
  const typeRadios = (['verifications', 'failures'] as const).map((value) =>
    h('input', { type: 'radio', name: 'type', id: `type-${value}`, value, checked: (ctx.params.get('type') ?? 'verifications') === value }),
  );
  const results = h('section', { 'aria-labelledby': 'results-h', class: 'results' });
  const resultStatus = h('p', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
  const slipStatus = h('div', { id: 'slip-status', role: 'status', 'aria-live': 'polite' });

  const recordType = (): RecordType => (typeRadios[1]!.checked ? 'failures' : 'verifications');
  const syncDisabled = () => {
    const type = recordType();
    for (const f of FAILURE_ONLY) inputs[f].disabled = type !== 'failures';
  };
  syncDisabled();

  // Dates are typed in the chosen language's form and kept canonical (see formatDateInput).
  const values = (): Record<Field, string> =>
    Object.fromEntries(FIELDS.map((f) => [f, inputs[f].disabled ? '' : DATE_FIELDS.has(f) ? (parseDateInput(inputs[f].value) ?? '') : inputs[f].value.trim()])) as Record<Field, string>;
  /** False (and the field says why) when a date filter is not a date. */
  const datesValid = (): boolean => {
    let valid = true;
    for (const f of DATE_FIELDS) {
      const input = inputs[f] as HTMLInputElement;
      const bad = parseDateInput(input.value) === null;
      input.setCustomValidity(bad ? t().format.badDateInput(dateInputExample()) : '');
      if (bad && valid) input.reportValidity();
      valid &&= !bad;
    }
    return valid;
  };

  const load = async () => {
    const type = recordType();
    const v = values();
    const title = type === 'verifications' ? m.verifications : m.failures;
    results.replaceChildren(h('h2', { id: 'results-h' }, m.newestFirst(title)), loading(type === 'verifications' ? m.loadingVerifications : m.loadingFailures));
    const common = recordFilter(v);
    try {
      let table: HTMLElement;
      let page: Page<unknown>;
      if (type === 'verifications') {
        const data = await gql<{ verifyTransactions: Page<Verification> }>(VERIFICATIONS, { filter: common, after: pager.after });
        page = data.verifyTransactions;
        table = verificationTable(data.verifyTransactions.nodes);
      } else {
        const filter = { ...common, kind: v.kind || null };
        const data = await gql<{ requestErrors: Page<Failure> }>(FAILURES, { filter, after: pager.after });
        page = data.requestErrors;
        table = failureTable(data.requestErrors.nodes);
      }
      if (!ctx.isCurrent()) return;
      results.lastChild?.remove();
      if (page.nodes.length === 0) {
        const none = noneMessage(type, v);
        results.append(empty(none));
        resultStatus.textContent = none;
        return;
      }
      results.append(table, pager.controls(title, page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null, () => void load()));
      resultStatus.textContent = m.shownOnPage(title, page.nodes.length, pager.page, page.pageInfo.hasNextPage);
    } catch (err) {
      if (!ctx.isCurrent()) return;
      results.lastChild?.remove();
      results.append(ctx.problem(err, () => void load()));
    }
  };

  const search = () => {
    if (!datesValid()) return;
    pager.reset();
    const v = values();
    // Filters go in the address (shareable, back button); the token never does.
    history.pushState(null, '', href(['audit'], { type: recordType() === 'failures' ? 'failures' : null, ...v }));
    void load();
  };

  // The current filter as a CSV file, streamed by the admin listener (GET export/audit.csv).
  const download = async () => {
    if (!datesValid()) return;
    const v = values();
    resultStatus.textContent = m.downloading;
    try {
      await downloadAuditCsv({ type: recordType(), ...recordFilter(v), kind: v.kind || null });
      resultStatus.textContent = m.downloaded;
    } catch (err) {
      if (!ctx.isCurrent()) return;
      results.replaceChildren(ctx.problem(err, () => void download()));
    }
  };

  const form = h(
    'form',
    {
      class: 'filters card',
      'aria-labelledby': 'filters-h',
      onsubmit: (event: SubmitEvent) => {
        event.preventDefault();
        search();
      },
    },
    h('h2', { id: 'filters-h' }, m.filters),
    h(
      'fieldset',
      { class: 'type', onchange: syncDisabled },
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
              for (const f of FIELDS) inputs[f].value = '';
              search();
            },
          },
          m.clear,
        ),
        h('button', { type: 'button', class: 'secondary', onclick: () => void download() }, m.download),
      ),
    ),
  );

  const onSlip = async (file: File | undefined) => {
    if (!file) return;
    slipStatus.replaceChildren(h('p', { class: 'notice' }, m.reading(file.name)));
    const read = await readSlipImage(file);
    if (!ctx.isCurrent()) return;
    if (!read.ok) {
      slipStatus.replaceChildren(h('p', { class: 'notice error' }, read.reason));
      return;
    }
    slipStatus.replaceChildren(
      h(
        'p',
        { class: 'notice ok' },
        m.slipRead,
        bankLabel(read.slip.sendingBank),
        m.slipTransaction,
        h('code', { 'data-testid': 'slip-trans-ref' }, read.slip.transRef),
        m.slipShowing,
      ),
    );
    typeRadios[0]!.checked = true;
    syncDisabled();
    for (const f of FIELDS) inputs[f].value = '';
    inputs.transactionId.value = read.slip.transRef;
    inputs.bank.value = read.slip.sendingBank;
    search();
    // A slip that never verified (or was refused) shows up only as failures: say so here.
    const failed = await slipFailures(read.slip);
    if (!ctx.isCurrent() || failed === null) return;
    const showFailures = () => {
      typeRadios[1]!.checked = true;
      syncDisabled();
      search();
    };
    slipStatus.append(
      failed.count === 0
        ? h('p', { class: 'hint', 'data-testid': 'slip-failures' }, m.noSlipFailures)
        : h(
            'p',
            { class: 'notice', 'data-testid': 'slip-failures' },
            m.slipFailures(failed.count, failed.more),
            h('button', { type: 'button', class: 'secondary', onclick: showFailures }, m.showFailures),
          ),
    );
  };

  ctx.main.append(
    pageHeading(t().nav.audit),
    h('div', { class: 'audit-top' }, form, slipDropZone(onSlip, slipStatus)),
    resultStatus,
    results,
  );
  void fillUpstreamNames(inputs.upstream);
  await load();
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

/** The filter both record types take, as the API names it (the search and the download send the same). */
function recordFilter(v: Record<Field, string>) {
  return {
    accountId: v.account || null,
    from: bangkokInput(v.from),
    to: bangkokInput(v.to),
    upstream: v.upstream || null,
    transactionId: v.transactionId || null,
    sendingBank: v.bank || null,
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

/** How many failed requests name this slip (one page's worth); null when the lookup failed. */
async function slipFailures(slip: { transRef: string; sendingBank: string }): Promise<{ count: number; more: boolean } | null> {
  try {
    const filter = { transactionId: slip.transRef, sendingBank: slip.sendingBank };
    const data = await gql<{ requestErrors: Page<{ id: string }> }>(SLIP_FAILURES, { filter });
    return { count: data.requestErrors.nodes.length, more: data.requestErrors.pageInfo.hasNextPage };
  } catch {
    return null;
  }
}

async function fillUpstreamNames(input: HTMLInputElement | HTMLSelectElement): Promise<void> {
  try {
    const data = await gql<{ upstreams: { name: string }[] }>(UPSTREAM_NAMES);
    input.after(h('datalist', { id: 'upstream-names' }, data.upstreams.map((u) => h('option', { value: u.name }))));
  } catch {
    // Suggestions only; the field still takes any name.
  }
}

function slipDropZone(onFile: (file: File | undefined) => void, status: HTMLElement): HTMLElement {
  const m = t().audit;
  const file = h('input', {
    type: 'file',
    id: 'slip-file',
    accept: 'image/png,image/jpeg,image/webp,image/gif,image/bmp',
    onchange: (event: Event) => {
      const input = event.target as HTMLInputElement;
      onFile(input.files?.[0]);
      input.value = '';
    },
  });
  const zone = h(
    'div',
    {
      class: 'dropzone',
      'data-testid': 'slip-drop',
      ondragover: (event: DragEvent) => {
        event.preventDefault();
        zone.classList.add('over');
      },
      ondragleave: () => zone.classList.remove('over'),
      ondrop: (event: DragEvent) => {
        event.preventDefault();
        zone.classList.remove('over');
        onFile(event.dataTransfer?.files[0]);
      },
    },
    h('p', {}, m.drop),
    h('label', { for: 'slip-file', class: 'button-link' }, m.choose),
    file,
    h('p', { class: 'hint' }, m.notUploaded),
  );
  return h('section', { class: 'card slip', 'aria-labelledby': 'slip-h' }, h('h2', { id: 'slip-h' }, m.slipHeading), zone, status);
}

function accountCell(id: string | null, account: AccountName | null): HTMLElement | string {
  if (!id) return h('span', { class: 'muted' }, t().audit.noAccount);
  return h('a', { href: href(['accounts', id]) }, account ? text(account.name) : id);
}

function verificationTable(rows: Verification[]): HTMLElement {
  const m = t().audit;
  return dataTable(
    m.verifications,
    [
      { label: m.time },
      { label: m.accountCol },
      { label: m.transactionId },
      { label: m.amount, numeric: true },
      { label: m.bank },
      { label: m.receivingBank },
      { label: m.upstream },
      { label: m.latency, numeric: true },
    ],
    rows.map((r) => [
      time(r.createdAt),
      accountCell(r.accountId, r.account),
      r.redactedAt ? h('span', {}, h('code', {}, r.transactionId), ' ', redactedBadge(r.redactedAt)) : h('code', {}, r.transactionId),
      formatThb(r.amount),
      bankLabel(r.sendingBank),
      bankLabel(r.receivingBank),
      r.upstream,
      formatMs(r.latencyMs),
    ]),
    { captionHidden: true },
  );
}

/** Says the record lost its personal data (PDPA retention or erasure), and when. */
function redactedBadge(at: string): HTMLElement {
  const m = t().audit;
  const label = badge(m.redacted, 'neutral');
  label.title = m.redactedTitle(formatTime(at));
  label.dataset.testid = 'redacted';
  return label;
}

function failureTable(rows: Failure[]): HTMLElement {
  const m = t().audit;
  return dataTable(
    m.failures,
    [
      { label: m.time },
      { label: m.accountCol },
      { label: m.kind },
      { label: m.message },
      { label: m.upstream },
      { label: m.latency, numeric: true },
      { label: m.transactionId },
    ],
    rows.map((r) => [
      time(r.createdAt),
      accountCell(r.accountId, r.account),
      badge(errorKindLabel(r.kind), 'bad'),
      r.message,
      r.upstream ?? h('span', { class: 'muted' }, '—'),
      r.latencyMs == null ? '' : formatMs(r.latencyMs),
      r.transactionId ? h('code', {}, r.transactionId) : h('span', { class: 'muted' }, '—'),
    ]),
    { captionHidden: true },
  );
}

function noneMessage(type: RecordType, v: Record<Field, string>): string {
  const m = t().audit;
  if (type === 'verifications' && v.transactionId) return m.noVerificationOf(v.transactionId);
  const failures = type === 'failures';
  return FIELDS.some((f) => v[f]) ? m.noneMatch(failures) : m.noneYet(failures);
}
