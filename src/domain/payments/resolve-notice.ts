// After a staff resolution of a slip that came through a LINE chat, the
// customer who sent it is pushed the result, in the channel's language:
// their slip paid their order. Only when the store still knows who sent it
// (the record's LINE user, which retention removes) and the channel is
// still connected to the request's account. The message speaks only of
// this slip and the order it paid. A failed push changes nothing (logged).
import type { LineApi } from '../ports/line-api.js';
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import type { VerifyTransactionRecord } from '../types.js';
import { baht } from '../line/replies.js';
import type { PaymentRequest } from './types.js';

export interface CustomerNoticeDeps {
  store: Store;
  /** Opens the channel's sealed access token (SECRETS_KEY). */
  secrets: { open(sealed: string): string };
  api: Pick<LineApi, 'push'>;
  logger?: Logger;
}

/** `line:<channel id>` stands for the key on a LINE chat's records. */
const LINE_KEY = 'line:';

export function lineCustomerNotice(deps: CustomerNoticeDeps) {
  return async (record: VerifyTransactionRecord, request: PaymentRequest): Promise<void> => {
    if (record.source !== 'line' || !record.lineUserId || !record.keyId.startsWith(LINE_KEY)) return;
    const channelId = record.keyId.slice(LINE_KEY.length);
    try {
      const channel = await deps.store.getLineChannel(channelId);
      if (!channel || channel.accountId !== request.accountId) return;
      const th = channel.lang === 'th';
      const text = th
        ? `✅ ร้านค้ายืนยันสลิปของคุณแล้ว\nยอด ${baht(record.amount)}\nชำระคำสั่งซื้อ ${request.reference}`
        : `✅ The shop matched your slip to your order.\nAmount ${baht(record.amount)}\nPaid order ${request.reference}`;
      const sent = await deps.api.push(deps.secrets.open(channel.sealedToken), record.lineUserId, text);
      if (sent !== 'sent') deps.logger?.warn({ channelId, paymentRequestId: request.id }, 'LINE push of a staff resolution failed');
    } catch (err) {
      deps.logger?.warn({ err, channelId, paymentRequestId: request.id }, 'LINE push of a staff resolution failed');
    }
  };
}
