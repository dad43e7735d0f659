// The audit log's slip-image search: a dropped photo or screenshot is read in
// the browser (never uploaded) and its transaction's records are looked up.
import { gql } from '../api.js';
import { h } from '../dom.js';
import { t } from '../i18n/index.js';
import { readSlipImage } from '../slip-image.js';
import { bankLabel } from '../vocabulary.js';
import type { Filters } from './audit-filters.js';
import type { Page } from './audit-table.js';

const SLIP_FAILURES = `query SlipFailures($filter: RequestErrorFilter) {
  requestErrors(filter: $filter, first: 100) { nodes { id } pageInfo { hasNextPage } }
}`;

interface SlipSearch {
  filters: Filters;
  search: () => void;
  isCurrent: () => boolean;
}

/** The drop zone and its status line; a slip read fills the filters and searches. */
export function slipSearch(s: SlipSearch): HTMLElement {
  const status = h('div', { id: 'slip-status', role: 'status', 'aria-live': 'polite' });
  return slipDropZone((file) => void onSlip(s, status, file), status);
}

async function onSlip({ filters: f, search, isCurrent }: SlipSearch, status: HTMLElement, file: File | undefined): Promise<void> {
  if (!file) return;
  const m = t().audit;
  status.replaceChildren(h('p', { class: 'notice' }, m.reading(file.name)));
  const read = await readSlipImage(file);
  if (!isCurrent()) return;
  if (!read.ok) {
    status.replaceChildren(h('p', { class: 'notice error' }, read.reason));
    return;
  }
  status.replaceChildren(
    h('p', { class: 'notice ok' }, m.slipRead, bankLabel(read.slip.sendingBank), m.slipTransaction, h('code', { 'data-testid': 'slip-trans-ref' }, read.slip.transRef), m.slipShowing),
  );
  f.showType('verifications');
  f.clear();
  f.inputs.transactionId.value = read.slip.transRef;
  f.inputs.bank.value = read.slip.sendingBank;
  search();
  // A slip that never verified (or was refused) shows up only as failures: say so here.
  const failed = await slipFailures(read.slip);
  if (!isCurrent() || failed === null) return;
  const showFailures = () => {
    f.showType('failures');
    search();
  };
  status.append(
    failed.count === 0
      ? h('p', { class: 'hint', 'data-testid': 'slip-failures' }, m.noSlipFailures)
      : h(
          'p',
          { class: 'notice', 'data-testid': 'slip-failures' },
          m.slipFailures(failed.count, failed.more),
          h('button', { type: 'button', class: 'secondary', onclick: showFailures }, m.showFailures),
        ),
  );
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
