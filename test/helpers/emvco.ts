// An EMVCo QR payload read the way a phone banking app reads it, written
// here independently of promptparse: TLV fields (2-digit tag, 2-digit
// length, value), and tag 63 (PromptPay) or 91 (slip) as the CRC-16 of
// everything before its value.

/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), the checksum of EMVCo/Thai QR payloads. */
export function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'latin1')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** Top-level (or nested) fields in order; throws on a length that runs past the end. */
function tlvFields(text: string): [tag: string, value: string][] {
  const fields: [string, string][] = [];
  for (let at = 0; at < text.length; ) {
    const tag = text.slice(at, at + 2);
    const length = Number(text.slice(at + 2, at + 4));
    if (!/^\d{2}$/.test(tag) || !Number.isInteger(length) || at + 4 + length > text.length) throw new Error(`bad TLV at ${at}`);
    fields.push([tag, text.slice(at + 4, at + 4 + length)]);
    at += 4 + length;
  }
  return fields;
}

/** What a banking app takes from a dynamic PromptPay QR, after checking its CRC (tag 63, last). */
export function readPromptPay(payload: string): { crcOk: boolean; dynamic: boolean; proxyType: string; target: string; amount: string | null; currency: string } {
  const fields = new Map(tlvFields(payload));
  const crcOk = payload.endsWith(fields.get('63') ?? 'none') && crc16(payload.slice(0, -4)) === fields.get('63');
  const merchant = new Map(tlvFields(fields.get('29') ?? ''));
  const proxy = [...merchant.entries()].find(([tag]) => tag !== '00');
  return {
    crcOk,
    dynamic: fields.get('01') === '12',
    proxyType: proxy?.[0] ?? '',
    target: proxy?.[1] ?? '',
    amount: fields.get('54') ?? null,
    currency: fields.get('53') ?? '',
  };
}
