// `slipgate admin-tokens …`: tokens for the internal GraphQL API.
import { InvalidArgumentError, type Command } from 'commander';
import { ADMIN_ROLES, isAdminRole } from '../domain/admin/tokens.js';
import type { AdminRole } from '../domain/types.js';
import { printJson, withExistingStore, withStore } from './context.js';
import { bangkokTime, printTable } from './output.js';

function role(value: string): AdminRole {
  if (!isAdminRole(value)) throw new InvalidArgumentError(`expected one of ${ADMIN_ROLES.join(', ')}, got "${value}"`);
  return value;
}

export function registerAdminTokenCommands(program: Command): void {
  const tokens = program.command('admin-tokens').description('manage tokens for the GraphQL admin API (admin listener, /graphql)');

  tokens
    .command('create')
    .description('create an admin token (shown once)')
    .requiredOption('--name <name>', 'who or what uses it, e.g. "dashboard" or "somchai (support)"')
    .requiredOption('--role <role>', `${ADMIN_ROLES.join(' | ')}`, role)
    .option('--json', 'print JSON: {"id","name","role","token"}')
    .action((opts: { name: string; role: AdminRole; json?: boolean }) =>
      withStore(async ({ adminTokens, actor }) => {
        const { token, secret } = await adminTokens.create({ name: opts.name, role: opts.role, actor });
        if (opts.json) return printJson({ id: token.id, name: token.name, role: token.role, token: secret });
        console.log(`Admin token ${token.id} (${token.name}, ${token.role}) created.`);
        console.log(`Token, shown only now, store it safely: ${secret}`);
        console.log(`Use it as: Authorization: Bearer ${token.prefix}…`);
      }),
    );

  tokens
    .command('list')
    .description('list admin tokens (prefix only), newest first')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      withExistingStore(async ({ adminTokens }) => {
        const list = (await adminTokens.list()).map(({ hash: _hash, ...t }) => t);
        if (opts.json) return printJson(list);
        if (list.length === 0) return console.log('No admin tokens.');
        printTable(list.map((t) => ({ id: t.id, name: t.name, role: t.role, prefix: t.prefix, 'created (Bangkok)': bangkokTime(t.createdAt), revoked: bangkokTime(t.revokedAt) })));
      }),
    );

  tokens
    .command('revoke <id>')
    .description('revoke an admin token: it gets 401 from now on')
    .action((id: string) =>
      withExistingStore(async ({ adminTokens, actor }) => {
        if (!(await adminTokens.revoke(id, actor))) {
          console.error(`slipgate: no live admin token ${id}`);
          process.exitCode = 2;
          return;
        }
        console.log(`Admin token ${id} revoked.`);
      }),
    );
}
