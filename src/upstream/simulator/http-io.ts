// Small node:http helpers for the simulated banks.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

const MAX_BODY_BYTES = 64 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBodyBytes(req, MAX_BODY_BYTES)).toString('utf8');
}

/** The raw body (a slip picture's multipart form), refused beyond `maxBytes`. */
export async function readBodyBytes(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * The parts of a multipart/form-data body (undici's parser, as a browser
 * reads a form); null when the body is not one.
 */
export async function readForm(req: IncomingMessage, body: Buffer): Promise<FormData | null> {
  const contentType = req.headers['content-type'] ?? '';
  if (!contentType.startsWith('multipart/form-data')) return null;
  try {
    return await new Request('http://simulator/', { method: 'POST', headers: { 'content-type': contentType }, body: new Uint8Array(body) }).formData();
  } catch {
    return null;
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, text: string, contentType = 'application/json'): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Waits `ms`; false when the client went away meanwhile (nothing left to answer). */
export async function waitUnlessGone(res: ServerResponse, ms: number): Promise<boolean> {
  if (ms <= 0) return !res.destroyed;
  const gone = new AbortController();
  const onClose = () => gone.abort();
  res.once('close', onClose);
  try {
    await sleep(ms, undefined, { signal: gone.signal });
    return true;
  } catch {
    return false;
  } finally {
    res.off('close', onClose);
  }
}

/** Holds the request until the client gives up (the sandbox "timeout" outcome). */
export function hangUntilGone(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) resolve();
    else res.once('close', () => resolve());
  });
}

/**
 * A slip picture's QR, read with slipgate's own decoder, loaded on the first
 * picture: the provider descriptors name their simulators, so every command
 * line start would otherwise load the image libraries. Null when unreadable.
 */
export async function readPictureQr(picture: Blob): Promise<string | null> {
  const { decodeSlipImage } = await import('../../slip-image/decode-image.js');
  return decodeSlipImage(new Uint8Array(await picture.arrayBuffer())).catch(() => null);
}
