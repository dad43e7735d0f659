// A slip API's quota falling below UPSTREAM_QUOTA_LOW reaches the staff on
// LINE (docs/line.md#staff-notifications): every connected channel queues one
// note for its staff targets, in the channel's language, batched with the
// other notes. The network is the host's, shared by its shops, so every
// channel is told; the WARN line is the record, a note a courtesy.
import type { Logger } from '../ports/logger.js';
import type { LineStore } from '../ports/store-line.js';
import type { LineStaffNotifier } from './staff-notifier.js';
import type { LineLanguage } from './types.js';

function quotaLowNoteText(domain: string, remaining: number, lang: LineLanguage): string {
  return lang === 'th'
    ? `📉 เครือข่ายตรวจสลิป ${domain} เหลือโควตา ${remaining} ครั้ง: ต่อแพ็กเกจเพื่อให้ตรวจสลิปต่อได้`
    : `📉 The slip network ${domain} has ${remaining} checks left: renew its package to keep verifying slips`;
}

/** The listener the server adds to the pool's whenQuotaLow. */
export function quotaLowToStaff(store: Pick<LineStore, 'listLineChannels'>, staff: Pick<LineStaffNotifier, 'note'>, logger?: Logger): (domain: string, remaining: number) => void {
  return (domain, remaining) => {
    store.listLineChannels().then(
      (channels) => {
        for (const channel of channels) staff.note(channel, quotaLowNoteText(domain, remaining, channel.lang));
      },
      (err: unknown) => logger?.warn({ err, upstream: domain }, 'low upstream quota not told to LINE staff'),
    );
  };
}
