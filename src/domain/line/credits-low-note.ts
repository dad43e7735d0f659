// account.credits_low reaches the shop's staff on LINE too
// (docs/line.md#staff-notifications): each channel of the account queues one
// note for its staff targets, batched with the slips that need a person, in
// the channel's language. The webhook event is the record; a note is a
// courtesy and a failure to queue it is logged, never the fall's.
import type { CreditsLow } from '../accounts/credits-low.js';
import type { Logger } from '../ports/logger.js';
import type { LineStore } from '../ports/store-line.js';
import type { LineStaffNotifier } from './staff-notifier.js';
import type { LineLanguage } from './types.js';

function creditsLowNoteText(fall: CreditsLow, lang: LineLanguage): string {
  return lang === 'th'
    ? `🪫 เครดิตเหลือ ${fall.credits} (ต่ำกว่า ${fall.threshold}): เติมเครดิตเพื่อให้ตรวจสลิปต่อได้`
    : `🪫 ${fall.credits} credits left (below ${fall.threshold}): top up to keep verifying slips`;
}

/** The listener the server adds to CreditsLowWatch.onFall. */
export function creditsLowToStaff(store: Pick<LineStore, 'listLineChannels'>, staff: Pick<LineStaffNotifier, 'note'>, logger?: Logger): (fall: CreditsLow) => void {
  return (fall) => {
    store.listLineChannels(fall.accountId).then(
      (channels) => {
        for (const channel of channels) staff.note(channel, creditsLowNoteText(fall, channel.lang));
      },
      (err: unknown) => logger?.warn({ err, accountId: fall.accountId }, 'account.credits_low not told to LINE staff'),
    );
  };
}
