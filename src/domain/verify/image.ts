// Reading the slip QR of an image body, for the verification path. The
// decoding itself runs in the image pool (src/images), off the event loop.
import type { ImageDecoder } from '../ports/images.js';

const NO_QR_IN_IMAGE = 'no slip QR code found in the image';
const TOO_SLOW = 'the image could not be read in time; send a smaller or sharper picture of the slip';

export type ImageRead =
  | { ok: true; qrcode: string }
  /** A picture without a readable slip QR: a failed verification, recorded, free. */
  | { ok: false; unreadable: true; message: string }
  /** A body error or a busy decoder: answered as is, free, not recorded. */
  | { ok: false; unreadable: false; refused: 'bad_request' | 'busy' | 'unavailable'; message: string };

export async function readSlipImage(decoder: ImageDecoder | undefined, image: Buffer): Promise<ImageRead> {
  if (!decoder) return { ok: false, unreadable: false, refused: 'unavailable', message: 'image verification is not available on this server' };
  const result = await decoder.decode(image);
  switch (result.kind) {
    case 'qrcode':
      return { ok: true, qrcode: result.qrcode };
    case 'no_qr':
      return { ok: false, unreadable: true, message: NO_QR_IN_IMAGE };
    case 'timeout':
      return { ok: false, unreadable: true, message: TOO_SLOW };
    case 'busy':
      return { ok: false, unreadable: false, refused: 'busy', message: 'too many images are being read right now; retry shortly' };
    case 'too_many_pixels':
      return { ok: false, unreadable: false, refused: 'bad_request', message: result.message };
    case 'not_image':
      return { ok: false, unreadable: false, refused: 'bad_request', message: 'image is not a readable JPEG, PNG or WebP picture' };
  }
}
