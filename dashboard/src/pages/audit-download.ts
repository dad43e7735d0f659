// The audit log's Download CSV: the current filter's records, all pages,
// streamed by the admin listener (GET export/audit.csv).
import { downloadAuditCsv } from '../api.js';
import { t } from '../i18n/index.js';
import { recordFilter, type Filters } from './audit-filters.js';

/** Says on `status` how it went; a failure goes to `onError` (the page shows it with a retry). */
export async function downloadCsv(f: Filters, status: HTMLElement, onError: (err: unknown) => void): Promise<void> {
  if (!f.datesValid()) return;
  const m = t().audit;
  const v = f.values();
  status.textContent = m.downloading;
  try {
    await downloadAuditCsv({ type: f.recordType(), ...recordFilter(v), kind: v.kind || null });
    status.textContent = m.downloaded;
  } catch (err) {
    onError(err);
  }
}
