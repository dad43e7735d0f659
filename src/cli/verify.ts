// `slipgate verify`: verify one slip against a running slipgate, from the QR
// text or from a photo/screenshot of the slip (decoded locally and never
// uploaded, unless --server-decode sends the picture for slipgate to read).
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { createClient, SlipgateError, type Checks } from '../client/index.js';
import { InputError } from '../domain/errors.js';

interface VerifyCliOptions {
  image?: string;
  qr?: string;
  url: string;
  apiKey?: string;
  checks?: string;
  duplicate?: boolean;
  amount?: string;
  receiverAccount?: string;
  receiverName?: string;
  maxAge?: string;
  decodeOnly?: boolean;
  serverDecode?: boolean;
  timeout: string;
}

export function registerVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description('verify one slip with a running slipgate (QR text or slip image); prints the JSON result')
    .option('--image <file>', 'slip photo or screenshot (PNG, JPEG, WebP); the QR is read locally')
    .option('--qr <string>', 'the raw QR text instead of an image')
    .option('--url <url>', 'slipgate public URL (env SLIPGATE_URL)', process.env.SLIPGATE_URL ?? 'http://127.0.0.1:3000')
    .option('--api-key <key>', 'API key (env SLIPGATE_API_KEY keeps it out of shell history)')
    .option('--checks <json>', 'opt-in checks as JSON, e.g. \'{"duplicate":true,"amount":250}\'')
    .option('--duplicate', 'check whether your account verified this slip before')
    .option('--amount <baht>', 'check the amount, e.g. 250.00')
    .option('--receiver-account <digits>', 'check the receiver account / PromptPay (at least 4 digits)')
    .option('--receiver-name <name>', 'check the receiver name (Thai or English)')
    .option('--max-age <minutes>', 'check that the slip is at most this old')
    .option('--decode-only', 'only print the QR text read from --image; no API call, no credit')
    .option('--server-decode', 'send the --image file itself; slipgate reads the QR (as a chat bot receiving pictures would)')
    .option('--timeout <ms>', 'give up after this long per attempt', '12000')
    .addHelpText('after', '\nExit codes: 0 verified, 1 not verified (error answer), 2 bad input, 3 slipgate unreachable.')
    .action(async (opts: VerifyCliOptions) => {
      if (opts.serverDecode && (!opts.image || opts.decodeOnly)) throw new InputError('--server-decode needs --image <file> and no --decode-only');
      const picture = opts.serverDecode ? await readImage(opts.image!) : undefined;
      const qrcode = picture ? '' : await readQr(opts);
      if (opts.decodeOnly) {
        console.log(qrcode);
        return;
      }
      const apiKey = opts.apiKey ?? process.env.SLIPGATE_API_KEY;
      if (!apiKey) throw new InputError('--api-key (or SLIPGATE_API_KEY) is required');
      const checks = collectChecks(opts);
      const timeoutMs = Number(opts.timeout);
      if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new InputError('--timeout must be a positive number of milliseconds');
      const client = createClient({
        url: opts.url,
        apiKey,
        timeoutMs,
        onRetry: (r) => console.error(`slipgate: ${r.reason}, retrying in ${r.delayMs} ms`),
      });
      try {
        const result = picture
          ? checks
            ? await client.verifyImage(picture, { checks })
            : await client.verifyImage(picture)
          : checks
            ? await client.verify(qrcode, { checks })
            : await client.verify(qrcode);
        console.log(JSON.stringify(result, null, 2));
        if (result.status !== 'success') process.exitCode = 1;
      } catch (err) {
        if (!(err instanceof SlipgateError)) throw err;
        // Which URL matters: a wrong --url / SLIPGATE_URL is the usual cause.
        console.error(`slipgate: ${err.reason === 'network' ? `${err.message} (tried ${opts.url}; set --url or SLIPGATE_URL)` : err.message}`);
        process.exitCode = 3;
      }
    });
}

async function readQr(opts: VerifyCliOptions): Promise<string> {
  if (Boolean(opts.image) === Boolean(opts.qr)) throw new InputError('give exactly one of --image <file> or --qr <string>');
  if (opts.qr) return opts.qr;
  const bytes = await readImage(opts.image!);
  // Loaded only here: sharp's native library is not needed by other commands.
  const { decodeSlipImage, SlipImageError } = await import('../slip-image/decode-image.js');
  try {
    const qr = await decodeSlipImage(bytes);
    if (!qr) throw new InputError(`no QR code found in ${opts.image}; try a sharper or closer photo, or pass --qr`);
    return qr;
  } catch (err) {
    if (err instanceof SlipImageError) throw new InputError(`${opts.image}: ${err.message}`);
    throw err;
  }
}

async function readImage(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (err) {
    throw new InputError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function collectChecks(opts: VerifyCliOptions): Checks | undefined {
  let checks: Record<string, unknown> = {};
  if (opts.checks) {
    try {
      checks = JSON.parse(opts.checks) as Record<string, unknown>;
    } catch {
      throw new InputError('--checks must be a JSON object');
    }
    if (checks === null || typeof checks !== 'object' || Array.isArray(checks)) throw new InputError('--checks must be a JSON object');
  }
  // The server validates values and names; here only flags become fields.
  if (opts.duplicate) checks.duplicate = true;
  if (opts.amount !== undefined) checks.amount = number('--amount', opts.amount);
  if (opts.receiverAccount !== undefined) checks.receiverAccount = opts.receiverAccount;
  if (opts.receiverName !== undefined) checks.receiverName = opts.receiverName;
  if (opts.maxAge !== undefined) checks.maxAgeMinutes = number('--max-age', opts.maxAge);
  return Object.keys(checks).length > 0 ? (checks as Checks) : undefined;
}

function number(flag: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InputError(`${flag} must be a number`);
  return n;
}
