// `slipgate sandbox qr`: a slip QR the built-in sandbox network accepts.
import { writeFileSync } from 'node:fs';
import QRCode from 'qrcode';
import { Option, type Command } from 'commander';
import { bahtOf } from '../domain/payments/money.js';
import type { PaymentRequest } from '../domain/payments/types.js';
import { InputError } from '../domain/errors.js';
import { promptPayTarget } from '../domain/receivers/input.js';
import { targetReceiver } from '../domain/payments/target.js';
import { namePrintedAs } from '../domain/checks/receiver-rules.js';
import type { Receiver } from '../domain/types.js';
import { withExistingStore } from './context.js';
import { sandboxQr } from '../upstream/sandbox/sandbox-qr.js';
import { SandboxDetailsError, type SandboxDetails } from '../upstream/sandbox/sandbox-details.js';
import type { SandboxOutcome } from '../upstream/sandbox/transaction.js';

interface QrOptions {
  /** Also write the slip as a picture (PNG) to this file: what a customer uploads on a checkout page. */
  png?: string;
  /** Also write a phone banking app's slip with the QR, as a PNG screenshot, to this file. */
  slip?: string;
  bank: string;
  amount: string;
  outcome: SandboxOutcome;
  afterSeconds?: string;
  receiver?: string;
  receiverAccount?: string;
  receiverBank?: string;
  receiverPromptpay?: string;
  receiverName?: string;
  senderName?: string;
  paidAt?: string;
  minutesAgo?: string;
  pays?: string;
}

export function registerSandboxCommands(program: Command): void {
  const sandbox = program.command('sandbox').description('tools for the built-in sandbox network');
  sandbox
    .command('qr')
    .description('print a valid slip QR payload the sandbox answers; the options pin what it reports, so checks can be tried')
    .option('--bank <code>', 'sending bank code (3 digits)', '004')
    .option('--amount <thb>', 'amount the sandbox reports, e.g. 250.00', '100.00')
    .addOption(new Option('--outcome <outcome>', 'what the sandbox answers').choices(['success', 'not-found', 'error', 'timeout', 'late']).default('success'))
    .option('--after-seconds <n>', 'with --outcome late: the sandbox answers "not found" until this many seconds after the QR is made (rounded up to a whole second), then a success (default 60)')
    .addOption(
      new Option('--receiver <receiverId>', 'paid exactly to this registered receiver (slipgate receivers add): its account or PromptPay target, bank and name').conflicts([
        'receiverAccount',
        'receiverBank',
        'receiverPromptpay',
      ]),
    )
    .addOption(new Option('--receiver-account <digits>', "receiver's bank account, e.g. 123-3-13109-0 (reported masked: xxx-x-x3109-x)").conflicts('receiverPromptpay'))
    .option('--receiver-bank <code>', "receiver's bank code (default 014 for an account, 004 behind a PromptPay target)")
    .option('--receiver-promptpay <id>', 'paid to this PromptPay target instead: mobile (0… or +66…), national/tax ID or e-wallet ID')
    .option('--receiver-name <name>', "receiver's name, Thai or English (default: one of the sandbox's shops)")
    .option('--sender-name <name>', "sender's name (default: one of the sandbox's customers)")
    .addOption(new Option('--paid-at <time>', 'when it was paid, ISO 8601, e.g. 2026-11-25T14:05:00+07:00').conflicts('minutesAgo'))
    .option('--minutes-ago <n>', 'paid this many minutes ago (default: a time in the last 30 days)')
    .addOption(
      new Option(
        '--pays <paymentRequestId>',
        "a slip that pays this payment request exactly (its receiver, its amount, a time inside its window); --amount, --receiver-promptpay/--receiver-account, --paid-at/--minutes-ago change one of them to get that refusal",
      ).conflicts('receiver'),
    )
    .option('--png <file>', 'also write the slip QR as a PNG picture to this file (a slip picture to upload on a checkout page)')
    .option('--slip <file>', "also write a phone banking app's slip with this QR as a PNG screenshot (Thai text, amount, names, reference) to this file")
    .action(async function (this: Command, opts: QrOptions) {
      if (!/^\d{3}$/.test(opts.bank)) throw new InputError('--bank must be a 3-digit bank code such as 004');
      if (!/^\d{1,8}(\.\d{1,2})?$/.test(opts.amount)) throw new InputError('--amount must look like 250 or 250.00');
      const afterSeconds = lateDelay(opts);
      const paying = opts.pays === undefined ? undefined : await findPaymentRequest(opts.pays);
      const registered = paying?.receiver ?? (opts.receiver === undefined ? undefined : await findReceiver(opts.receiver));
      // With --pays, the request's amount and window unless the option was given on purpose.
      const amount = paying && this.getOptionValueSource('amount') !== 'cli' ? bahtOf(paying.request.amount) : Number(opts.amount);
      const ownTarget = opts.receiverAccount !== undefined || opts.receiverPromptpay !== undefined;
      const time: SandboxDetails = paying && opts.paidAt === undefined && opts.minutesAgo === undefined ? { paidAt: insideWindow(paying.request) } : {};
      const qr = (extra: SandboxDetails) => sandboxQr({ bank: opts.bank, amount, outcome: opts.outcome, afterSeconds, details: { ...time, ...details(opts), ...extra } });
      try {
        const payload = registered && !ownTarget ? paidToRegistered(registered, qr, opts.receiverName !== undefined) : qr({});
        if (opts.png !== undefined) await QRCode.toFile(opts.png, payload, { type: 'png', width: 360, margin: 4 });
        // Loaded only here: the image libraries would slow every command's start.
        if (opts.slip !== undefined) writeFileSync(opts.slip, await (await import('../upstream/sandbox/slip-picture.js')).sandboxSlipPicture(payload));
        console.log(payload);
      } catch (err) {
        if (err instanceof SandboxDetailsError) throw new InputError(err.message);
        throw err;
      }
    });
}

/** A late slip's delay in seconds (a day at most); undefined for every other outcome, which --after-seconds does not go with. */
function lateDelay(opts: QrOptions): number | undefined {
  if (opts.outcome !== 'late') {
    if (opts.afterSeconds !== undefined) throw new InputError('--after-seconds goes with --outcome late');
    return undefined;
  }
  const value = opts.afterSeconds ?? '60';
  if (!/^\d{1,5}$/.test(value) || Number(value) > 86_400) throw new InputError('--after-seconds must be a whole number of seconds from 0 to 86400');
  return Number(value);
}

/** The request and its own target (as its receiver was when it was made: a receiver removed or edited since changes nothing). */
function findPaymentRequest(id: string): Promise<{ request: PaymentRequest; receiver: Receiver }> {
  return withExistingStore(async ({ store }) => {
    const request = await store.getPaymentRequest(id);
    if (!request) throw new InputError(`no payment request ${id}`);
    const receiver = targetReceiver(request);
    if (!receiver) throw new InputError(`${id} was made before requests kept their target, and its receiver ${request.receiverId} was removed before the upgrade`);
    return { request, receiver };
  });
}

/** Now, when the request's window is open; otherwise a time inside it (a request that expired is still told expired). */
function insideWindow(p: PaymentRequest): Date {
  const now = Date.now();
  if (now >= p.createdAt.getTime() && now <= p.expiresAt.getTime()) return new Date(now);
  return new Date((p.createdAt.getTime() + p.expiresAt.getTime()) / 2);
}

function findReceiver(id: string): Promise<Receiver> {
  return withExistingStore(async ({ store }) => {
    const receiver = await store.getReceiver(id);
    if (!receiver) throw new InputError(`no receiver ${id}`);
    return receiver;
  });
}

/**
 * A slip paid to a registered receiver: its own bank and number, under the
 * name its bank prints. The slip's reference has little room, so a long name
 * is cut as banks cut them (a cut surname still matches); a name the sandbox
 * cannot carry, whole or cut so that it still agrees, is left out (the
 * digits decide when a slip shows no name). A name given
 * with --receiver-name is used as it is.
 */
function paidToRegistered(r: Receiver, qr: (extra: SandboxDetails) => string, nameGiven: boolean): string {
  const target: SandboxDetails =
    r.kind === 'bank' ? { receiverAccount: r.number, receiverBank: r.bankCode ?? undefined } : { receiverProxy: { type: r.proxyType ?? 'NATID', digits: r.number } };
  for (const name of nameGiven ? [] : [r.nameTh, r.nameEn].filter((n): n is string => n !== null)) {
    for (let length = name.length; length > 0; length--) {
      const cut = name.slice(0, length).trim();
      if (cut === '') break;
      // Only a cut the receiver rules still read as this name (never `ร้าน กา` for ร้านกาแฟ ดีดี).
      if (!namePrintedAs(cut, name)) continue;
      try {
        return qr({ ...target, receiverName: cut });
      } catch (err) {
        if (!(err instanceof SandboxDetailsError)) throw err;
      }
    }
  }
  return qr(target);
}

function details(opts: QrOptions): SandboxDetails {
  const out: SandboxDetails = {};
  if (opts.receiverAccount !== undefined) {
    if (!/^[\d\s-]+$/.test(opts.receiverAccount)) throw new InputError('--receiver-account must be digits (dashes and spaces allowed)');
    out.receiverAccount = opts.receiverAccount.replace(/[\s-]/g, '');
  }
  if (opts.receiverBank !== undefined) {
    if (!/^\d{3}$/.test(opts.receiverBank)) throw new InputError('--receiver-bank must be a 3-digit bank code such as 014');
    out.receiverBank = opts.receiverBank;
  }
  if (opts.receiverPromptpay !== undefined) {
    const target = promptPayTarget(opts.receiverPromptpay);
    out.receiverProxy = { type: target.proxyType ?? 'NATID', digits: target.number };
  }
  if (opts.receiverName !== undefined) out.receiverName = opts.receiverName;
  if (opts.senderName !== undefined) out.senderName = opts.senderName;
  if (opts.paidAt !== undefined) {
    const at = new Date(opts.paidAt);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(opts.paidAt) || Number.isNaN(at.getTime())) throw new InputError('--paid-at must be an ISO 8601 time such as 2026-11-25T14:05:00+07:00');
    out.paidAt = at;
  }
  if (opts.minutesAgo !== undefined) {
    if (!/^\d{1,7}$/.test(opts.minutesAgo)) throw new InputError('--minutes-ago must be a whole number of minutes');
    out.paidAt = new Date(Date.now() - Number(opts.minutesAgo) * 60_000);
  }
  return out;
}
