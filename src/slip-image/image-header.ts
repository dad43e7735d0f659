// Width and height of a PNG, JPEG or WebP file, read from its header without
// decompressing anything: the pixel limit (decompression bombs) is applied
// before any decoder allocates a pixel. Any doubt answers null, and the caller
// then leaves the file to sharp, which applies the same limit itself.

export interface ImageHeader {
  format: 'png' | 'jpeg' | 'webp';
  width: number;
  height: number;
  /**
   * How its pixels decode: `gray` (one gray channel, maybe with alpha), `color`
   * (RGB, maybe with alpha; PNG palettes too), `other` (CMYK JPEG) or unknown.
   * The first look reads one channel and must know which.
   */
  colour?: 'gray' | 'color' | 'other';
}

export function readImageHeader(b: Uint8Array): ImageHeader | null {
  if (isPng(b)) return png(b);
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return jpeg(b);
  if (b.length >= 12 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return webp(b);
  return null;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function isPng(b: Uint8Array): boolean {
  return b.length >= 8 && PNG_SIGNATURE.every((v, i) => b[i] === v);
}

function png(b: Uint8Array): ImageHeader | null {
  // IHDR must be the first chunk: length 13 at 8, type at 12, width and height at 16 and 20.
  if (b.length < 26 || ascii(b, 12, 4) !== 'IHDR') return null;
  const header = sized('png', u32be(b, 16), u32be(b, 20));
  // Colour type at 25: 0 gray, 4 gray + alpha; 2 RGB, 3 palette, 6 RGBA.
  const type = b[25]!;
  return header && { ...header, colour: type === 0 || type === 4 ? 'gray' : type === 2 || type === 3 || type === 6 ? 'color' : 'other' };
}

/** Start-of-frame markers (C0–CF less DHT C4, JPG C8, DAC CC) carry the frame size. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function jpeg(b: Uint8Array): ImageHeader | null {
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1]!;
    // Fill bytes, and markers without a length.
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    // Entropy-coded data before any frame header: nothing to trust.
    if (marker === 0xda || marker === 0xd9) return null;
    const length = (b[at + 2]! << 8) | b[at + 3]!;
    if (length < 2) return null;
    if (isStartOfFrame(marker)) {
      if (at + 10 > b.length) return null;
      const header = sized('jpeg', (b[at + 7]! << 8) | b[at + 8]!, (b[at + 5]! << 8) | b[at + 6]!);
      // Components: 1 gray, 3 YCbCr (decoded as RGB), 4 CMYK.
      const components = b[at + 9]!;
      return header && { ...header, colour: components === 1 ? 'gray' : components === 3 ? 'color' : 'other' };
    }
    at += 2 + length;
  }
  return null;
}

function webp(b: Uint8Array): ImageHeader | null {
  if (b.length < 30) return null;
  const chunk = ascii(b, 12, 4);
  // WebP always decodes to RGB(A).
  if (chunk === 'VP8X') return withColour(sized('webp', 1 + u24le(b, 24), 1 + u24le(b, 27)));
  if (chunk === 'VP8 ') {
    // Key frame start code, then 14-bit width and height (2 scale bits on top).
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null;
    return withColour(sized('webp', ((b[27]! << 8) | b[26]!) & 0x3fff, ((b[29]! << 8) | b[28]!) & 0x3fff));
  }
  if (chunk === 'VP8L') {
    if (b[20] !== 0x2f) return null;
    const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24);
    return withColour(sized('webp', 1 + (bits & 0x3fff), 1 + ((bits >>> 14) & 0x3fff)));
  }
  return null;
}

function withColour(header: ImageHeader | null): ImageHeader | null {
  return header && { ...header, colour: 'color' };
}

function sized(format: ImageHeader['format'], width: number, height: number): ImageHeader | null {
  return width > 0 && height > 0 ? { format, width, height } : null;
}

function ascii(b: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...b.subarray(at, at + length));
}

function u32be(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) >>> 0) + ((b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!);
}

function u24le(b: Uint8Array, at: number): number {
  return b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
}
