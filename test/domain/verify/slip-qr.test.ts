import { checksum } from 'promptparse';
import { describe, expect, it } from 'vitest';
import { MAX_QR_LENGTH, parseSlipQr, writtenReference } from '../../../src/domain/verify/slip-qr.js';
import { slipQr } from '../../../src/upstream/sandbox/sandbox-qr.js';
import vectors from '../../fixtures/slip-qr.json' with { type: 'json' };

describe('parseSlipQr', () => {
  it.each(vectors.valid)('accepts real-world slip $payload', (v) => {
    // The slip's identity is its reference in upper case; the QR's own spelling is what the bank is asked with.
    const parsed = parseSlipQr(v.payload);
    expect(parsed).toEqual({ ok: true, slip: { sendingBank: v.sendingBank, transRef: v.transRef.toUpperCase() } });
    expect(parsed.ok && writtenReference(v.payload, parsed.slip)).toBe(v.transRef);
  });

  it('gives a re-cased QR (CRC recomputed) the same identity: one transfer is one slip whatever its letters\' case', () => {
    const real = vectors.valid.find((v) => v.transRef === 'KMA240621180747wmUervZjtn')!;
    const recased = slipQr(real.sendingBank, 'kma240621180747WMuERVzJTN');
    expect(recased).not.toBe(real.payload);
    const a = parseSlipQr(real.payload);
    const b = parseSlipQr(recased);
    expect(b).toEqual(a);
    expect(b).toEqual({ ok: true, slip: { sendingBank: '025', transRef: 'KMA240621180747WMUERVZJTN' } });
    expect(b.ok && writtenReference(recased, b.slip)).toBe('kma240621180747WMuERVzJTN');
  });

  it.each(vectors.invalid)('rejects $payload ($why)', (v) => {
    expect(parseSlipQr(v.payload).ok).toBe(false);
  });

  it('rejects a TrueMoney wallet slip as not a bank slip', () => {
    expect(parseSlipQr(vectors.truemoney[0]!.payload)).toEqual({ ok: false, reason: 'not a bank slip verification QR code' });
  });

  it('pads a CRC whose leading zero a bank app dropped', () => {
    // CRC of this payload starts with 0; find one by varying the reference.
    const refs = Array.from({ length: 500 }, (_, i) => `0130711525${String(i).padStart(3, '0')}APM0773`);
    const full = refs.map((ref) => slipQr('004', ref)).find((qr) => qr.slice(-4).startsWith('0'))!;
    expect(full).toBeDefined();
    const shortened = full.replace(/9104(0+)(\w+)$/, '9104$2');
    expect(shortened.length).toBeLessThan(full.length);
    expect(parseSlipQr(shortened)).toEqual(parseSlipQr(full));
    expect(parseSlipQr(shortened).ok).toBe(true);
  });

  it('tolerates surrounding whitespace from scanners', () => {
    expect(parseSlipQr(`  ${vectors.valid[0]!.payload}\n`).ok).toBe(true);
  });

  it.each([
    ['empty', '', 'QR code is empty'],
    ['too long', '0'.repeat(MAX_QR_LENGTH + 1), 'QR code is too long'],
    ['non-ASCII', '0046สวัสดี', 'QR code has characters a slip QR never has'],
    // Negative TLV lengths used to hang the process (promptparse's decoder never advanced).
    ['negative CRC length', '0046000600000101030040225SBX0000010000S8UeApFxwOYH5102TH91-4FAAD', 'QR code has characters a slip QR never has'],
    ['negative nested length', '00460006000001-1030040225SBX0000010000S8UeApFxwOYH5102TH9104FAAD', 'QR code has characters a slip QR never has'],
    ['a space inside', '0046000600000101030040225SBX0000010000S8UeApFxwOYH5102TH 9104FAAD', 'QR code has characters a slip QR never has'],
    ['random text', 'helloworld', 'not a slip QR code (cannot be decoded)'],
    ['text with spaces', 'hello world', 'QR code has characters a slip QR never has'],
  ])('explains a %s payload', (_n, payload, reason) => {
    expect(parseSlipQr(payload)).toEqual({ ok: false, reason });
  });

  it('requires the TH country tag', () => {
    const head = '0041000600000101030040220013071152533APM077365102US';
    const payload = slipQr('004', '013071152533APM07736').replace('5102TH', '5102US');
    expect(payload.startsWith(head)).toBe(true);
    // Recompute the CRC so only the country is wrong.
    const fixed = payload.slice(0, -4);
    expect(parseSlipQr(fixed + checksum(fixed, true))).toEqual({ ok: false, reason: 'not a Thai bank slip QR (country tag is not TH)' });
  });
});
