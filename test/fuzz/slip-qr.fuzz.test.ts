// Hostile input for the slip QR parser: it never throws, whatever it is
// given, and it accepts a payload only when its CRC checks out (computed
// here independently of promptparse).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_QR_LENGTH, parseSlipQr, type SlipParseResult } from '../../src/domain/verify/slip-qr.js';
import { sandboxQr, slipQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { crc16 } from '../helpers/emvco.js';

const RUNS = { numRuns: 200 };


/** True when the payload ends in tag 91 whose value is the CRC of everything before it (dropped leading zeros allowed). */
function crcIsValid(input: string): boolean {
  const payload = input.trim();
  const at = payload.lastIndexOf('9104');
  if (at === -1) return false;
  const given = payload.slice(at + 4);
  if (!/^[0-9A-Fa-f]{1,4}$/.test(given)) return false;
  return given.toUpperCase().padStart(4, '0') === crc16(payload.slice(0, at + 4));
}

/** Never throws, and always a well-formed result. */
function parse(input: string): SlipParseResult {
  const result = parseSlipQr(input);
  if (result.ok) {
    expect(result.slip.sendingBank).toMatch(/^\d{3}$/);
    expect(result.slip.transRef).toMatch(/^[A-Za-z0-9]{1,64}$/);
  } else {
    expect(typeof result.reason).toBe('string');
    expect(result.reason.length).toBeGreaterThan(0);
  }
  return result;
}

const strings = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.string({ unit: 'binary-ascii', maxLength: 600 }),
  fc.stringMatching(/^[0-9A-Za-z]{0,120}$/),
  // Shaped like TLV, so the parser gets past its first checks.
  fc.array(fc.tuple(fc.stringMatching(/^\d{2}$/), fc.string({ unit: 'grapheme-ascii', maxLength: 30 })), { maxLength: 8 }).map((fields) =>
    fields.map(([id, value]) => id + String(value.length).padStart(2, '0') + value).join(''),
  ),
);

describe('parseSlipQr under hostile input', () => {
  it('never throws and accepts only payloads with a valid CRC', () => {
    fc.assert(
      fc.property(strings, (input) => {
        if (parse(input).ok) expect(crcIsValid(input)).toBe(true);
      }),
      RUNS,
    );
  });

  it('rejects huge input without throwing', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: MAX_QR_LENGTH + 1, maxLength: 200_000 }), (input) => {
        fc.pre(input.trim().length > MAX_QR_LENGTH);
        expect(parse(input)).toEqual({ ok: false, reason: 'QR code is too long' });
      }),
      { numRuns: 20 },
    );
    expect(parse(sandboxQr().repeat(50_000)).ok).toBe(false);
  });

  it('accepts any well-formed slip with its CRC, and rejects it with a wrong one', () => {
    const slip = fc.record({ bank: fc.stringMatching(/^\d{3}$/), ref: fc.stringMatching(/^[A-Za-z0-9]{1,25}$/), other: fc.integer({ min: 0, max: 0xffff }) });
    fc.assert(
      fc.property(slip, ({ bank, ref, other }) => {
        const qr = slipQr(bank, ref);
        expect(crcIsValid(qr)).toBe(true);
        expect(parse(qr)).toEqual({ ok: true, slip: { sendingBank: bank, transRef: ref.toUpperCase() } });
        const wrong = other.toString(16).toUpperCase().padStart(4, '0');
        fc.pre(wrong !== qr.slice(-4));
        expect(parse(qr.slice(0, -4) + wrong).ok).toBe(false);
      }),
      RUNS,
    );
  });

  it('rejects a valid slip with any one character changed', () => {
    const edit = fc.record({ at: fc.nat(), char: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) });
    fc.assert(
      fc.property(edit, ({ at, char }) => {
        const qr = sandboxQr();
        const i = at % qr.length;
        // A different letter case in the CRC's hex digits is the same checksum.
        fc.pre(char.toUpperCase() !== qr[i]!.toUpperCase());
        const changed = qr.slice(0, i) + char + qr.slice(i + 1);
        expect(parse(changed).ok).toBe(false);
      }),
      RUNS,
    );
  });
});
