// The image port: reading the slip QR out of a picture. src/images implements
// it with a pool of worker threads, off the event loop.
export type ImageDecodeResult =
  | { kind: 'qrcode'; qrcode: string }
  | { kind: 'no_qr' }
  /** The image took longer than the budget; its thread was replaced. */
  | { kind: 'timeout' }
  /** Every thread is working and the queue is full: nothing was started. */
  | { kind: 'busy' }
  | { kind: 'not_image' | 'too_many_pixels'; message: string };

export interface ImageDecoder {
  /** The decoder may take the image's memory (src/images moves it to its thread): the caller must not read `image` afterwards. */
  decode(image: Uint8Array): Promise<ImageDecodeResult>;
}
