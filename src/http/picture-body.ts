// The verify route's picture-as-bytes forms, read at the edge into what the
// domain checks (domain/verify-picture-body.ts): the raw body with its
// options in the query string, or a multipart form with its file part
// `image` and its fields. The body was already read whole, up to the image
// limit, by the route's raw reader: a form is no bigger than a picture.
import type { BodyRead, PictureBody } from '../domain/verify/types.js';

const IMAGE_PART = 'image';

/** The raw body is the picture; the query string carries the options (never logged: the access log has the path only). */
export function rawPicture(bytes: Buffer, url: string): BodyRead {
  const query = new URL(url, 'http://slipgate.invalid').searchParams;
  return { ok: true, picture: { bytes, options: [...query] } };
}

/**
 * A multipart form, parsed by Node's own fetch implementation (undici): one
 * file part named `image`, text fields for the options. Anything else is a
 * body problem that names it.
 */
export async function multipartPicture(bytes: Buffer, contentType: string): Promise<BodyRead> {
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': contentType } }).formData();
  } catch {
    return invalid('the multipart/form-data body could not be parsed');
  }
  const files: Blob[] = [];
  const options: PictureBody['options'] = [];
  for (const [name, value] of form) {
    if (typeof value === 'string') {
      if (name === IMAGE_PART) return invalid('image must be a file part holding the picture\'s bytes, not a text field');
      options.push([name, value]);
    } else if (name === IMAGE_PART) files.push(value);
    else return invalid(`unexpected file part ${JSON.stringify(name.slice(0, 100))}; the picture goes in the part named image`);
  }
  if (files.length === 0) return invalid('image is required: a file part named image holding the picture');
  if (files.length > 1) return invalid('send one image file part, not several');
  return { ok: true, picture: { bytes: Buffer.from(await files[0]!.arrayBuffer()), options } };
}

function invalid(message: string): BodyRead {
  return { ok: false, problem: { problem: 'invalid', message } };
}
