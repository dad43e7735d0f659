// `slipgate line …`: LINE Official Account channels connected to merchant
// accounts (docs/line.md). The channel secret and access token are sealed
// with SECRETS_KEY and never printed back.
import { Option, type Command } from 'commander';
import type { LineChannelView } from '../domain/line/types.js';
import { bangkokTime, printTable } from './output.js';
import { printJson, withExistingStore } from './context.js';
import { loadConfig } from '../config.js';
import { readSecrets } from './secret-input.js';
import { InputError } from '../domain/errors.js';

interface ConnectFlags {
  channelId: string;
  channelSecret?: string;
  channelSecretFile?: string;
  accessToken?: string;
  accessTokenFile?: string;
  lang?: string;
  checks: boolean;
  matchPaymentRequests?: boolean;
  hints?: boolean;
  reason?: string;
  json?: boolean;
}

const row = (c: LineChannelView) => ({
  channel: c.channelId,
  account: c.accountId,
  lang: c.lang,
  checks: c.checks ? 'on' : 'off',
  'payment requests': c.matchPaymentRequests ? 'match' : 'off',
  hints: c.hints ? 'on' : 'off',
  secret: c.secret,
  'access token': c.accessToken,
  'connected (Bangkok)': bangkokTime(c.createdAt),
});

export function registerLineCommands(program: Command): void {
  const line = program.command('line').description('connect LINE Official Account channels to merchant accounts (docs/line.md)');

  line
    .command('connect <accountId>')
    .description("connect a LINE channel: slips its customers send in chat are verified on the account's credits and answered in the chat (needs SECRETS_KEY)")
    .requiredOption('--channel-id <id>', 'the channel id (LINE Developers console, Basic settings)')
    .option('--channel-secret <secret>', 'the channel secret (32 hexadecimal digits); or --channel-secret-file')
    .option('--channel-secret-file <path>', 'read the channel secret from this file, or from stdin with -')
    .option('--access-token <token>', 'a long-lived channel access token (Messaging API tab); or --access-token-file')
    .option('--access-token-file <path>', 'read the access token from this file, or from stdin with -')
    .option('--lang <lang>', 'language of the replies: th or en', 'th')
    .option('--no-checks', "answer without the duplicate check and the account's reported receiver verdict")
    .option('--match-payment-requests', 'a slip sent in the chat pays the pending payment request of its receiver and amount (docs/line.md#payment-requests)')
    .option('--hints', 'answer chat that is not a slip (text, stickers, pictures without a slip QR) with a hint on what to send; by default such messages get no bot message')
    .option('--reason <text>', 'why, for the admin event trail')
    .option('--json', 'print JSON (secrets masked)')
    .action((accountId: string, opts: ConnectFlags) => {
      // Read before the store opens: a missing file changes nothing.
      const [channelSecret, accessToken] = readSecrets([
        { flag: '--channel-secret', value: opts.channelSecret, file: opts.channelSecretFile },
        { flag: '--access-token', value: opts.accessToken, file: opts.accessTokenFile },
      ]) as [string, string];
      return withExistingStore(async ({ lineChannels, actor }) => {
        const channel = await lineChannels.connect(actor, accountId, {
          channelId: opts.channelId,
          channelSecret,
          accessToken,
          lang: opts.lang ?? null,
          checks: opts.checks,
          matchPaymentRequests: opts.matchPaymentRequests ?? false,
          hints: opts.hints ?? false,
          reason: opts.reason ?? null,
        });
        if (opts.json) return printJson(channel);
        console.log(`LINE channel ${channel.channelId} connected to ${accountId} (replies in ${channel.lang === 'th' ? 'Thai' : 'English'}, checks ${channel.checks ? 'on' : 'off'}).`);
        const base = loadConfig().PUBLIC_URL ?? '<public URL>';
        console.log(`Set its webhook URL in the LINE Developers console to: ${base}/line/webhook/${channel.channelId}`);
      });
    });

  line
    .command('list')
    .description('list connected channels, oldest first (secrets masked)')
    .option('--account <accountId>', "only this account's channels")
    .option('--json', 'print JSON')
    .action((opts: { account?: string; json?: boolean }) =>
      withExistingStore(async ({ lineChannels }) => {
        const list = await lineChannels.list(opts.account);
        if (opts.json) return printJson(list);
        if (list.length === 0) return console.log('No LINE channels connected.');
        printTable(list.map(row));
      }),
    );

  line
    .command('set <channelId>')
    .description("change a connected channel's options")
    .addOption(new Option('--hints <setting>', 'on: chat that is not a slip gets a hint on what to send; off (the default): no bot message').choices(['on', 'off']).makeOptionMandatory())
    .option('--reason <text>', 'why, for the admin event trail')
    .action((channelId: string, opts: { hints: 'on' | 'off'; reason?: string }) =>
      withExistingStore(async ({ lineChannels, actor }) => {
        const channel = await lineChannels.setHints(actor, channelId, opts.hints === 'on', opts.reason ?? null);
        console.log(`LINE channel ${channel.channelId}: hints ${channel.hints ? 'on' : 'off'}.`);
      }),
    );

  line
    .command('notify <channelId>')
    .description('staff targets: the LINE users, groups and rooms pushed the slips that need a person, in batches (docs/line.md#staff-notifications)')
    .option('--to <id>', 'add a target: a LINE user id (U…), group id (C…, see `line groups`) or room id (R…)')
    .option('--remove <id>', 'remove a target')
    .option('--list', 'list the targets (what it does with no option)')
    .option('--reason <text>', 'why, for the admin event trail')
    .option('--json', 'print JSON')
    .action((channelId: string, opts: { to?: string; remove?: string; list?: boolean; reason?: string; json?: boolean }) => {
      if ([opts.to, opts.remove, opts.list].filter((o) => o !== undefined).length > 1) throw new InputError('give one of --to, --remove and --list');
      return withExistingStore(async ({ lineChannels, actor }) => {
        if (opts.to !== undefined) {
          const added = await lineChannels.addStaffTarget(actor, channelId, opts.to, opts.reason ?? null);
          return opts.json ? printJson(added) : console.log(`${added.targetId} is told the slips of LINE channel ${added.channelId} that need a person.`);
        }
        if (opts.remove !== undefined) {
          await lineChannels.removeStaffTarget(actor, channelId, opts.remove, opts.reason ?? null);
          return opts.json ? printJson({ removed: opts.remove.trim() }) : console.log(`${opts.remove.trim()} is no longer told.`);
        }
        const targets = await lineChannels.staffTargets(channelId);
        if (opts.json) return printJson(targets);
        if (targets.length === 0) return console.log('No staff targets: nobody is told of slips that need a person.');
        printTable(targets.map((t) => ({ target: t.targetId, kind: targetKind(t.targetId), 'added (Bangkok)': bangkokTime(t.createdAt) })));
      });
    });

  line
    .command('groups <channelId>')
    .description("the groups and rooms the channel's bot was added to (LINE join and leave events): candidates for `line notify --to`")
    .option('--json', 'print JSON')
    .action((channelId: string, opts: { json?: boolean }) =>
      withExistingStore(async ({ lineChannels }) => {
        const groups = await lineChannels.groups(channelId);
        if (opts.json) return printJson(groups);
        if (groups.length === 0) return console.log('The bot is in no group: add it to the staff group in LINE, then look again.');
        printTable(groups.map((g) => ({ group: g.groupId, kind: g.kind, 'joined (Bangkok)': bangkokTime(g.joinedAt), 'left (Bangkok)': g.leftAt ? bangkokTime(g.leftAt) : '-' })));
      }),
    );

  line
    .command('disconnect <channelId>')
    .description("disconnect a channel: its webhook answers 404 and its sealed secret and token are deleted")
    .option('--reason <text>', 'why, for the admin event trail')
    .action((channelId: string, opts: { reason?: string }) =>
      withExistingStore(async ({ lineChannels, actor }) => {
        const removed = await lineChannels.disconnect(actor, channelId, opts.reason ?? null);
        console.log(`LINE channel ${removed.channelId} disconnected from ${removed.accountId}.`);
      }),
    );
}

const targetKind = (id: string) => (id.startsWith('C') ? 'group' : id.startsWith('R') ? 'room' : 'user');
