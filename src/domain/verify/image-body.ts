// The `image` field of a verify request: a base64 JPEG, PNG or WebP file,
// optionally as a data URL. Only the file's signature is looked at here; the
// pixels are read later, off the event loop, by the image pool.

export type ImageField = { ok: true; bytes: Buffer } | { ok: false; message: string };

const DATA_URL = /^data:[\w.+/-]*(?:;[\w=.+-]+)*;base64,/i;
/** Standard or URL-safe alphabet, padding optional; line breaks are tolerated. */
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

const IMAGE_FORMATS = 'JPEG, PNG or WebP';

export function imageField(value: unknown): ImageField {
  if (typeof value !== 'string') return { ok: false, message: 'image must be a string: the picture file in base64' };
  const text = value.replace(DATA_URL, '').replace(/[\r\n]/g, '');
  if (text.trim() === '') return { ok: false, message: 'image must not be empty' };
  if (!BASE64.test(text) || unpaddedLength(text) % 4 === 1) return { ok: false, message: 'image is not valid base64' };
  return pictureBytes(Buffer.from(text, 'base64'));
}

/**
 * A picture's own bytes, however they came (decoded base64, the raw body, a
 * form's file part, LINE's content API): not empty, and a JPEG, PNG or WebP
 * file by its signature.
 */
export function pictureBytes(bytes: Buffer): ImageField {
  if (bytes.length === 0) return { ok: false, message: 'image must not be empty' };
  if (!imageFormat(bytes)) return { ok: false, message: `image must be a ${IMAGE_FORMATS} file` };
  return { ok: true, bytes };
}

/** Length without the trailing `=` padding, counted rather than copied (a picture is hundreds of KB). */
function unpaddedLength(text: string): number {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x3d) end--;
  return end;
}

/** By signature: libvips would read more (SVG, TIFF, PDF…) than a slip picture needs. */
function imageFormat(b: Buffer): 'jpeg' | 'png' | 'webp' | null {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  return null;
}
