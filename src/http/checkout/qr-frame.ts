// The checkout page's QR picture: the request's PromptPay code in a Thai QR
// Payment style frame (a navy band on top, the PromptPay name, the amount and
// the shop's name under the code), one PNG a customer can save to the photo
// gallery and scan from there. The code itself is the payment routes' own
// (qrcode, level M, quiet zone kept), composed with sharp: it still reads as
// exactly the request's `promptpay` payload (test/checkout/qr-frame.test.ts).
import QRCode from 'qrcode';
import sharp from 'sharp';

const WIDTH = 480;
const QR_SIZE = 400;
const BAND = 72;
const HEIGHT = BAND + 24 + QR_SIZE + 120;

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function framedQrPng(payload: string, caption: { amount: string; shop: string }): Promise<Buffer> {
  const qr = await QRCode.toBuffer(payload, { type: 'png', errorCorrectionLevel: 'M', margin: 4, width: QR_SIZE });
  const shop = caption.shop.length > 40 ? `${caption.shop.slice(0, 39)}…` : caption.shop;
  const top = BAND + 24 + QR_SIZE;
  const frame = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}">
  <rect width="100%" height="100%" fill="#ffffff"/>
  <rect width="100%" height="${BAND}" fill="#113566"/>
  <text x="50%" y="${BAND / 2 + 10}" font-family="DejaVu Sans, sans-serif" font-size="28" font-weight="bold" fill="#ffffff" text-anchor="middle">THAI QR PAYMENT</text>
  <text x="50%" y="${top + 10}" font-family="DejaVu Sans, sans-serif" font-size="16" fill="#113566" text-anchor="middle">PromptPay</text>
  <text x="50%" y="${top + 56}" font-family="DejaVu Sans, sans-serif" font-size="36" font-weight="bold" fill="#000000" text-anchor="middle">฿ ${escapeXml(caption.amount)}</text>
  <text x="50%" y="${top + 92}" font-family="DejaVu Sans, sans-serif" font-size="20" fill="#333333" text-anchor="middle">${escapeXml(shop)}</text>
  <rect x="1" y="1" width="${WIDTH - 2}" height="${HEIGHT - 2}" fill="none" stroke="#113566" stroke-width="2"/>
</svg>`;
  return sharp(Buffer.from(frame))
    .composite([{ input: qr, top: BAND + 16, left: (WIDTH - QR_SIZE) / 2 }])
    .png()
    .toBuffer();
}
