// The audit log: successful verifications or failed requests, with the
// GraphQL API's filters (audit-filters.ts), cursor paging, the results table
// (audit-table.ts), the CSV download (audit-download.ts), and a slip-image
// search that reads the QR in the browser and looks its transaction up
// (audit-slip.ts).
import { pageHeading, type PageContext } from '../context.js';
import { h } from '../dom.js';
import { t } from '../i18n/index.js';
import { href } from '../router.js';
import { CursorPager, empty, loading } from '../ui.js';
import { downloadCsv } from './audit-download.js';
import { fillUpstreamNames, filterForm, filters } from './audit-filters.js';
import { slipSearch } from './audit-slip.js';
import { noneMessage, recordsPage } from './audit-table.js';

export async function auditPage(ctx: PageContext): Promise<void> {
  const m = t().audit;
  const pager = new CursorPager();
  const f = filters(ctx.params);
  const results = h('section', { 'aria-labelledby': 'results-h', class: 'results' });
  const resultStatus = h('p', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });

  const load = async () => {
    const type = f.recordType();
    const v = f.values();
    const title = type === 'verifications' ? m.verifications : m.failures;
    results.replaceChildren(h('h2', { id: 'results-h' }, m.newestFirst(title)), loading(type === 'verifications' ? m.loadingVerifications : m.loadingFailures));
    try {
      const { page, table } = await recordsPage(type, v, pager.after);
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
    if (!f.datesValid()) return;
    pager.reset();
    // Filters go in the address (shareable, back button); the token never does.
    history.pushState(null, '', href(['audit'], { type: f.recordType() === 'failures' ? 'failures' : null, ...f.values() }));
    void load();
  };

  const download = (): Promise<void> =>
    downloadCsv(f, resultStatus, (err) => {
      if (ctx.isCurrent()) results.replaceChildren(ctx.problem(err, () => void download()));
    });

  const form = filterForm(f, { search, download: () => void download() });
  ctx.main.append(
    pageHeading(t().nav.audit),
    h('div', { class: 'audit-top' }, form, slipSearch({ filters: f, search, isCurrent: () => ctx.isCurrent() })),
    resultStatus,
    results,
  );
  void fillUpstreamNames(f.inputs.upstream);
  await load();
}
