// A SlipQuery with the QR text a slip of that bank and reference carries
// (CRC and all), as the verify path hands it to the network: slip APIs are
// sent the QR text itself, banks its reference.
import type { SlipQuery } from '../../src/domain/ports/upstream.js';
import { slipQr } from '../../src/upstream/sandbox/sandbox-qr.js';

export function withQr(query: Omit<SlipQuery, 'qrcode'>): SlipQuery {
  return { ...query, qrcode: slipQr(query.sendingBank, query.transRef) };
}
