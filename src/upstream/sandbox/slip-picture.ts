// `slipgate sandbox qr --slip <file>`: the sandbox slip as a phone's banking
// app shows it once a transfer went through (a coloured header, the amount,
// the time, both parties' names and masked numbers, the reference, the mini
// QR in its corner), drawn as a PNG screenshot to try the picture path
// without a real slip. Everything on it is what the sandbox bank will answer
// for this QR (transaction.ts); the QR is the slip's own payload.
import QRCode from 'qrcode';
import sharp from 'sharp';
import { parseSlipQr, writtenReference } from '../../domain/verify/slip-qr.js';
import { sandboxTransaction } from './transaction.js';

const WIDTH = 1080;
const HEIGHT = 1920;
const QR_SIZE = 300;

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

interface Party {
  displayName?: string;
  account?: string | { value?: string };
  proxy?: string | { value?: string };
}

const maskedNumber = (p: Party): string => {
  const account = typeof p.account === 'object' ? p.account.value : undefined;
  const proxy = typeof p.proxy === 'object' ? p.proxy.value : undefined;
  return account ?? proxy ?? '';
};

/** The slip picture of a sandbox QR (a PNG); throws for a QR that is not a slip's. */
export async function sandboxSlipPicture(qrcode: string): Promise<Buffer> {
  const parsed = parseSlipQr(qrcode);
  if (!parsed.ok) throw new Error(`not a slip QR: ${parsed.reason}`);
  // The QR's own spelling: the sandbox reads the details it carries from the reference's letters.
  const slip = sandboxTransaction(parsed.slip.sendingBank, writtenReference(qrcode, parsed.slip));
  const sender = slip.sender as Party;
  const receiver = slip.receiver as Party;
  const date = `${slip.transDate.slice(6, 8)}/${slip.transDate.slice(4, 6)}/${Number(slip.transDate.slice(0, 4)) + 543}`;
  const amount = Number(slip.amount).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const line = (y: number, size: number, text: string, opts: { weight?: string; fill?: string; anchor?: string; x?: number } = {}) =>
    `<text x="${opts.x ?? 80}" y="${y}" font-family="Loma, DejaVu Sans, sans-serif" font-size="${size}" font-weight="${opts.weight ?? 'normal'}" fill="${opts.fill ?? '#1d2330'}" text-anchor="${opts.anchor ?? 'start'}">${escapeXml(text)}</text>`;
  const card = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}">
  <rect width="100%" height="100%" fill="#eef1f4"/>
  <rect x="40" y="200" width="${WIDTH - 80}" height="1500" rx="36" fill="#ffffff"/>
  <rect x="40" y="200" width="${WIDTH - 80}" height="220" rx="36" fill="#138f2d"/>
  ${line(300, 52, 'โอนเงินสำเร็จ', { weight: 'bold', fill: '#ffffff' })}
  ${line(370, 34, `${date} ${slip.transTime.slice(0, 5)} น.`, { fill: '#e6f4ea' })}
  ${line(540, 36, 'จาก', { fill: '#6b7280' })}
  ${line(600, 44, sender.displayName ?? '', { weight: 'bold' })}
  ${line(655, 34, `${slip.sendingBank} · ${maskedNumber(sender)}`, { fill: '#4b5563' })}
  ${line(760, 36, 'ไปยัง', { fill: '#6b7280' })}
  ${line(820, 44, receiver.displayName ?? '', { weight: 'bold' })}
  ${line(875, 34, `${slip.receivingBank} · ${maskedNumber(receiver)}`, { fill: '#4b5563' })}
  ${line(1000, 36, 'จำนวนเงิน', { fill: '#6b7280' })}
  ${line(1080, 72, `${amount} บาท`, { weight: 'bold' })}
  ${line(1180, 32, 'เลขที่รายการ', { fill: '#6b7280' })}
  ${line(1230, 30, slip.transRef)}
</svg>`;
  const qr = await QRCode.toBuffer(qrcode, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: QR_SIZE });
  return sharp(Buffer.from(card))
    .composite([{ input: qr, left: WIDTH - 80 - QR_SIZE - 40, top: 1700 - QR_SIZE - 60 }])
    .png()
    .toBuffer();
}
