// `slipgate webhooks …`: signed webhook endpoints of a merchant account
// (docs/webhooks.md). The signing secret is printed by `add` and never again.
import type { Command } from 'commander';
import { bangkokTime, printTable } from './output.js';
import { printJson, withExistingStore } from './context.js';
import { readSecrets } from './secret-input.js';

const events = (value: string) => value.split(',');

export function registerWebhookCommands(program: Command): void {
  const webhooks = program.command('webhooks').description("manage an account's signed webhook endpoints (docs/webhooks.md)");

  webhooks
    .command('add <accountId>')
    .description('register an endpoint; prints its id and signing secret (shown only now)')
    .requiredOption('--url <url>', 'https URL events are POSTed to (http only for a loopback host)')
    .option('--events <types>', 'comma-separated event types (default: every type)', events)
    .option('--secret-file <path>', 'sign with the secret in this file (or stdin: -) instead of a new one, e.g. the one the receiver already has; it is not printed')
    .option('--reason <text>', 'why, for the admin event trail')
    .option('--json', 'print JSON: {"id","accountId","url","events","secret"} (no "secret" with --secret-file)')
    .action((accountId: string, opts: { url: string; events?: string[]; secretFile?: string; reason?: string; json?: boolean }) => {
      // Read before the store opens: a missing file changes nothing.
      const [given] = opts.secretFile === undefined ? [] : readSecrets([{ flag: '--secret', value: undefined, file: opts.secretFile }]);
      return withExistingStore(async ({ webhooks: service, actor }) => {
        const { endpoint, secret } = await service.add(actor, accountId, { url: opts.url, events: opts.events, reason: opts.reason ?? null, ...(given === undefined ? {} : { secret: given }) });
        if (opts.json) return printJson({ id: endpoint.id, accountId, url: endpoint.url, events: endpoint.events, ...(given === undefined ? { secret } : {}) });
        console.log(`Webhook endpoint ${endpoint.id} added for ${accountId}: ${endpoint.url} (${endpoint.events.join(', ')})`);
        if (given === undefined) console.log(`Signing secret, shown only now, store it safely: ${secret}`);
        else console.log('Signing with the secret from --secret-file (not printed).');
      });
    });

  webhooks
    .command('list <accountId>')
    .description("list the account's endpoints, oldest first (never their secrets)")
    .option('--json', 'print JSON')
    .action((accountId: string, opts: { json?: boolean }) =>
      withExistingStore(async ({ webhooks: service }) => {
        const list = await service.list(accountId);
        if (opts.json) return printJson(list);
        if (list.length === 0) return console.log(`No webhook endpoints for ${accountId}.`);
        printTable(list.map((e) => ({ id: e.id, url: e.url, events: e.events.join(','), 'created (Bangkok)': bangkokTime(e.createdAt) })));
      }),
    );

  webhooks
    .command('remove <endpointId>')
    .description('remove an endpoint: it gets no more events, and its pending deliveries fail')
    .option('--reason <text>', 'why, for the admin event trail')
    .action((endpointId: string, opts: { reason?: string }) =>
      withExistingStore(async ({ webhooks: service, actor }) => {
        const removed = await service.remove(actor, endpointId, opts.reason ?? null);
        console.log(`Webhook endpoint ${removed.id} removed (${removed.url}).`);
      }),
    );
}
