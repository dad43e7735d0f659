// A picture that costs the decoder every look it has: a QR whose data area is
// scribbled over. ZXing finds its finder patterns and grid but the data does
// not decode, so jsQR's attempts run too (seconds of CPU at 2400 px). Tests
// that need a decoder thread kept busy send it; a picture without any QR is
// given up after ZXing's looks, in a fraction of that.
import QRCode from 'qrcode';
import sharp from 'sharp';

export async function unreadableQrPicture(side = 2400): Promise<Buffer> {
  const qr = QRCode.create('00470006000001010300414022320051229103012345678905102TH91049C2B', { errorCorrectionLevel: 'L' });
  const n = qr.modules.size;
  const px = Math.floor((side * 0.8) / (n + 8));
  const at = Math.floor((side - n * px) / 2);
  const gray = Buffer.alloc(side * side, 255);
  // A fixed linear congruential sequence: the same picture every run.
  let state = 12345;
  const flip = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32 < 0.3;
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const finder = (x < 8 && y < 8) || (x >= n - 8 && y < 8) || (x < 8 && y >= n - 8);
      const dark = (qr.modules.get(x, y) === 1) !== (!finder && flip());
      if (!dark) continue;
      for (let dy = 0; dy < px; dy++) {
        const row = (at + y * px + dy) * side;
        gray.fill(0, row + at + x * px, row + at + (x + 1) * px);
      }
    }
  }
  return sharp(gray, { raw: { width: side, height: side, channels: 1 } }).jpeg({ quality: 80 }).toBuffer();
}
