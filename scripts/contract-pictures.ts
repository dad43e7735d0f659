// The verify route's picture-as-bytes forms in openapi.json (docs/contract.md#slip-pictures):
// the raw body as image/jpeg, image/png or image/webp with the options as query parameters,
// and multipart/form-data with the file part `image` and the options as fields.

const OPTIONS_NOTE = 'Only beside a picture sent as bytes (image/* or multipart/form-data); a JSON body carries its options in itself and its query string is ignored.';

const PICTURE = { type: 'string', format: 'binary', description: 'The slip picture: a JPEG, PNG or WebP file (by its signature), at most MAX_IMAGE_BYTES and IMAGE_MAX_PIXELS.' };

function queryParameters(): unknown[] {
  return [
    {
      name: 'paymentRequest',
      in: 'query',
      required: false,
      description: `Opt-in: the payment request this slip should pay, as \`paymentRequest\` in JSON. ${OPTIONS_NOTE}`,
      schema: { type: 'string', pattern: '^pr_[0-9a-f]{32}$' },
    },
    {
      name: 'checks',
      in: 'query',
      required: false,
      description: `Opt-in merchant checks, the \`Checks\` object written as JSON text (URL-encoded), e.g. \`{"amount":250}\`. ${OPTIONS_NOTE}`,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Checks' } } },
    },
    {
      name: 'recheck',
      in: 'query',
      required: false,
      description: `Opt-in, as \`recheck\` in JSON: \`true\` keeps a slip the bank does not know yet for re-checks (202 pending). ${OPTIONS_NOTE}`,
      schema: { enum: ['true', 'false'] },
    },
  ];
}

function multipartSchema(): unknown {
  return {
    type: 'object',
    required: ['image'],
    additionalProperties: false,
    properties: {
      image: PICTURE,
      paymentRequest: { type: 'string', pattern: '^pr_[0-9a-f]{32}$', description: 'Opt-in, as `paymentRequest` in JSON.' },
      checks: { type: 'string', description: 'Opt-in merchant checks: the `Checks` object as JSON text.' },
      recheck: { enum: ['true', 'false'], description: 'Opt-in, as `recheck` in JSON.' },
    },
  };
}

interface Operation {
  parameters?: unknown[];
  requestBody: { content: Record<string, unknown> };
  responses: Record<string, { description: string }>;
}

/** Adds the byte forms to POST /api/v1/verify; the JSON form is left as it is. */
export function addPictureForms(paths: Record<string, unknown>): void {
  const verify = (paths['/api/v1/verify'] as { post: Operation }).post;
  verify.parameters = queryParameters();
  verify.responses['413']!.description =
    'Body larger than `MAX_BODY_BYTES` (16 KiB by default), or, for a picture (`image` in JSON, the raw body, a multipart form), larger than `MAX_IMAGE_BYTES` (4 MiB by default; as bytes the picture itself, in JSON its base64 and the JSON around it).';
  verify.responses['415']!.description =
    '`Content-Type` is none of application/json, image/jpeg, image/png, image/webp, multipart/form-data (with its boundary). Another image type is named in the message.';
  const raw = { schema: PICTURE };
  Object.assign(verify.requestBody.content, {
    'image/jpeg': raw,
    'image/png': raw,
    'image/webp': raw,
    'multipart/form-data': { schema: multipartSchema(), encoding: { image: { contentType: 'image/jpeg, image/png, image/webp' } } },
  });
}
