// What the image pool and its decoder threads say to each other.

export interface DecodeRequest {
  id: number;
  /** The image file, transferred (not copied) to the thread. */
  bytes: ArrayBuffer;
  maxPixels: number;
}

export type DecodeReply =
  | { ready: true }
  | { id: number; ok: true; qrcode: string | null }
  | { id: number; ok: false; reason: 'not_image' | 'too_many_pixels' | 'failed'; message: string };
