// The checkout page's QR picture is drawn once per payment request
// (#61: every page load drew it afresh, ~40 ms of CPU each). The drawing is
// the real one, counted.
import { describe, expect, it } from 'vitest';
import { framedQrPng } from '../../src/http/checkout/qr-frame.js';
import { QrPictures } from '../../src/http/checkout/qr-pictures.js';
import { generate } from 'promptparse';

function counted() {
  const calls: string[] = [];
  const draw: typeof framedQrPng = (payload, caption) => {
    calls.push(`${payload}|${caption.shop}`);
    return framedQrPng(payload, caption);
  };
  return { calls, draw };
}

const payload = (amount: number) => generate.anyId({ type: 'MSISDN', target: '0812345678', amount });
const caption = { amount: '349.50', shop: 'ร้านทดสอบ' };

describe('checkout QR pictures', () => {
  it('draws a request once, however many loads ask, at once or one after another', async () => {
    const { calls, draw } = counted();
    const pictures = new QrPictures(draw);
    const first = await Promise.all(Array.from({ length: 5 }, () => pictures.of('pr_1', payload(349.5), caption)));
    const later = await pictures.of('pr_1', payload(349.5), caption);
    expect(calls).toHaveLength(1);
    expect(first.every((png) => png.equals(later))).toBe(true);
    expect(later.subarray(1, 4).toString()).toBe('PNG');
    // What a fresh drawing gives: the kept picture is the same bytes.
    expect(later.equals(await framedQrPng(payload(349.5), caption))).toBe(true);
  });

  it('draws again for another request, and for a renamed shop', async () => {
    const { calls, draw } = counted();
    const pictures = new QrPictures(draw);
    await pictures.of('pr_1', payload(349.5), caption);
    await pictures.of('pr_2', payload(100), { amount: '100.00', shop: caption.shop });
    await pictures.of('pr_1', payload(349.5), { ...caption, shop: 'new name' });
    expect(calls).toHaveLength(3);
  });

  it('keeps at most its bound, dropping the least recently shown', async () => {
    const { calls, draw } = counted();
    const pictures = new QrPictures(draw, 2);
    await pictures.of('pr_1', payload(1), caption);
    await pictures.of('pr_2', payload(2), caption);
    await pictures.of('pr_1', payload(1), caption); // pr_1 shown again: pr_2 is now the oldest
    await pictures.of('pr_3', payload(3), caption); // drops pr_2
    expect(calls).toHaveLength(3);
    await pictures.of('pr_1', payload(1), caption);
    expect(calls).toHaveLength(3);
    await pictures.of('pr_2', payload(2), caption);
    expect(calls).toHaveLength(4);
  });

  it('does not keep a drawing that failed: the next load draws again', async () => {
    let fail = true;
    let drawn = 0;
    const pictures = new QrPictures((p, c) => {
      drawn++;
      return fail ? Promise.reject(new Error('no room')) : framedQrPng(p, c);
    });
    await expect(pictures.of('pr_1', payload(1), caption)).rejects.toThrow('no room');
    fail = false;
    const png = await pictures.of('pr_1', payload(1), caption);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(drawn).toBe(2);
  });
});
