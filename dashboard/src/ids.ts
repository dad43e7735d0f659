// Idempotency keys for money-moving forms. crypto.randomUUID needs a secure
// context (https or localhost); an admin port reached over plain http on a
// LAN address is not one, so fall back to getRandomValues (always there).
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return `dash-${crypto.randomUUID()}`;
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `dash-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
