// Reads the checkout form's slip picture (multipart/form-data, one file named
// `slip`) into a Buffer, with the verify route's byte limit. Anything else
// (another type, no file, too large, a broken body) is a verdict for the
// page, never an exception.
import { Busboy } from '@fastify/busboy';
import type { Request } from 'express';

export type Upload = { ok: true; image: Buffer } | { ok: false; problem: 'no_file' | 'too_large' | 'unreadable' };

export function readSlipUpload(req: Request, maxBytes: number): Promise<Upload> {
  return new Promise((resolve) => {
    const type = req.headers['content-type'];
    if (!type || !/^multipart\/form-data/i.test(type)) return resolve({ ok: false, problem: 'no_file' });
    let busboy: ReturnType<typeof Busboy>;
    try {
      busboy = Busboy({ headers: { ...req.headers, 'content-type': type }, limits: { files: 1, fields: 4, parts: 5, fileSize: maxBytes, fieldSize: 1024 } });
    } catch {
      return resolve({ ok: false, problem: 'unreadable' });
    }
    let result: Upload = { ok: false, problem: 'no_file' };
    busboy.on('file', (field, stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (field !== 'slip') return;
        if (stream.truncated) result = { ok: false, problem: 'too_large' };
        else if (chunks.length > 0) result = { ok: true, image: Buffer.concat(chunks) };
      });
    });
    busboy.on('finish', () => resolve(result));
    busboy.on('error', () => {
      req.unpipe(busboy);
      req.resume();
      resolve({ ok: false, problem: 'unreadable' });
    });
    req.pipe(busboy);
  });
}
