// What staff do to LINE channels (GraphQL, dashboard, CLI): connect one to a
// merchant account, list, disconnect. The channel secret and access token
// are sealed with SECRETS_KEY (a copy of the database alone does not hand
// them out) and never shown again; without the key a channel is refused.
// Every change is an admin event and a log line naming its actor.
import { recordAdminEvent } from '../admin/events.js';
import { InputError } from '../errors.js';
import type { ChangeLog } from '../ports/logger.js';
import { StoreError, type Store } from '../ports/store.js';
import type { SecretBox } from '../secret-box.js';
import { LINE_LANGUAGES, lineChannelView, type LineChannel, type LineChannelView, type LineGroup, type LineLanguage, type LineStaffTarget } from './types.js';

export interface LineChannelsDeps {
  store: Store;
  secrets: SecretBox;
  log?: ChangeLog;
  now?: () => Date;
}

export interface ConnectInput {
  channelId: string;
  channelSecret: string;
  accessToken: string;
  lang?: string | null;
  /** Duplicate check and receiver policy decide the reply; default on. */
  checks?: boolean | null;
  matchPaymentRequests?: boolean | null;
  /** Answer chat that is not a slip with a hint; default off (quiet). */
  hints?: boolean | null;
  reason?: string | null;
}

/** LINE channel ids are digits (the console shows ten). */
const CHANNEL_ID = /^[0-9]{1,20}$/;
/** A channel secret is 32 hex digits; tokens are long base64-like strings. Anything with spaces or control characters is a paste mistake. */
const CHANNEL_SECRET = /^[0-9a-fA-F]{32}$/;
const ACCESS_TOKEN = /^[A-Za-z0-9+/=._-]{20,2000}$/;

/** A LINE user (U…), group (C…) or room (R…) id: a letter and 32 hexadecimal digits. */
const TARGET_ID = /^[UCR][0-9a-f]{32}$/;

export function parseChannelId(value: string): string {
  const id = value.trim();
  if (!CHANNEL_ID.test(id)) throw new InputError('channel id must be the LINE channel id: digits only');
  return id;
}

function parseLanguage(value: string | null | undefined): LineLanguage {
  if (value === undefined || value === null) return 'th';
  const lang = value.trim().toLowerCase();
  if (!(LINE_LANGUAGES as readonly string[]).includes(lang)) throw new InputError(`language must be one of: ${LINE_LANGUAGES.join(', ')}`);
  return lang as LineLanguage;
}

export class LineChannels {
  private readonly now: () => Date;

  constructor(private readonly deps: LineChannelsDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async connect(actor: string, accountId: string, input: ConnectInput): Promise<LineChannelView> {
    if (!this.deps.secrets.keyed) throw new InputError('SECRETS_KEY is not set: a LINE channel secret and access token are stored only sealed with it (see docs/line.md)');
    const channelId = parseChannelId(input.channelId);
    const secret = input.channelSecret.trim();
    if (!CHANNEL_SECRET.test(secret)) throw new InputError('channel secret must be the 32 hexadecimal digits the LINE console shows');
    const token = input.accessToken.trim();
    if (!ACCESS_TOKEN.test(token)) throw new InputError('access token must be the channel access token the LINE console issues (20 to 2000 characters, no spaces)');
    const lang = parseLanguage(input.lang);
    const account = await this.deps.store.getAccount(accountId);
    if (!account || account.deletedAt) throw new StoreError('not_found', 'account not found');
    if (await this.deps.store.getLineChannel(channelId)) throw new InputError(`LINE channel ${channelId} is connected already; disconnect it first`);
    const channel: LineChannel = {
      channelId,
      accountId,
      sealedSecret: this.deps.secrets.seal(secret),
      sealedToken: this.deps.secrets.seal(token),
      lang,
      checks: input.checks ?? true,
      matchPaymentRequests: input.matchPaymentRequests ?? false,
      hints: input.hints ?? false,
      createdAt: this.now(),
    };
    await this.deps.store.createLineChannel(channel);
    const { lang: l, checks, matchPaymentRequests, hints } = channel;
    await this.change(actor, 'connectLineChannel', channelId, input.reason, { accountId, lang: l, checks, matchPaymentRequests, hints }, 'LINE channel connected');
    return lineChannelView(channel);
  }

  /** Every channel, or one account's (an unknown account is not found). */
  async list(accountId?: string): Promise<LineChannelView[]> {
    if (accountId !== undefined && !(await this.deps.store.getAccount(accountId))) throw new StoreError('not_found', 'account not found');
    return (await this.deps.store.listLineChannels(accountId)).map(lineChannelView);
  }

  /** Turns the hint for chat that is not a slip on or off (docs/line.md#quiet-by-default). */
  async setHints(actor: string, channelId: string, hints: boolean, reason?: string | null): Promise<LineChannelView> {
    const updated = await this.deps.store.setLineChannelHints(parseChannelId(channelId), hints);
    if (!updated) throw new StoreError('not_found', 'LINE channel not found');
    await this.change(actor, 'setLineChannelHints', updated.channelId, reason, { accountId: updated.accountId, hints }, 'LINE channel hints set');
    return lineChannelView(updated);
  }

  /** Adds a staff target: a LINE user, group or room pushed the slips that need a person (docs/line.md#staff-notifications). */
  async addStaffTarget(actor: string, channelId: string, targetId: string, reason?: string | null): Promise<LineStaffTarget> {
    const channel = await this.channel(channelId);
    const id = targetId.trim();
    if (!TARGET_ID.test(id)) throw new InputError('staff target must be a LINE user id (U…), group id (C…) or room id (R…): a letter and 32 hexadecimal digits (`slipgate line groups` lists the groups the bot is in)');
    const target = { channelId: channel.channelId, targetId: id, createdAt: this.now() };
    if (!(await this.deps.store.addLineStaffTarget(target))) throw new InputError(`${id} is a staff target of LINE channel ${channel.channelId} already`);
    await this.change(actor, 'addLineStaffTarget', channel.channelId, reason, { accountId: channel.accountId, targetId: id }, 'LINE staff target added');
    return target;
  }

  async removeStaffTarget(actor: string, channelId: string, targetId: string, reason?: string | null): Promise<LineChannelView> {
    const channel = await this.channel(channelId);
    if (!(await this.deps.store.removeLineStaffTarget(channel.channelId, targetId.trim()))) throw new StoreError('not_found', 'no such staff target on this LINE channel');
    await this.change(actor, 'removeLineStaffTarget', channel.channelId, reason, { accountId: channel.accountId, targetId: targetId.trim() }, 'LINE staff target removed');
    return lineChannelView(channel);
  }

  async staffTargets(channelId: string): Promise<LineStaffTarget[]> {
    return this.deps.store.listLineStaffTargets((await this.channel(channelId)).channelId);
  }

  /** The groups and rooms the channel's bot was added to (LINE's join events), left ones included. */
  async groups(channelId: string): Promise<LineGroup[]> {
    return this.deps.store.listLineGroups((await this.channel(channelId)).channelId);
  }

  private async channel(channelId: string): Promise<LineChannel> {
    const found = await this.deps.store.getLineChannel(parseChannelId(channelId));
    if (!found) throw new StoreError('not_found', 'LINE channel not found');
    return found;
  }

  async disconnect(actor: string, channelId: string, reason?: string | null): Promise<LineChannelView> {
    const found = await this.deps.store.getLineChannel(channelId.trim());
    if (!found || !(await this.deps.store.deleteLineChannel(found.channelId))) throw new StoreError('not_found', 'LINE channel not found');
    await this.change(actor, 'disconnectLineChannel', found.channelId, reason, { accountId: found.accountId }, 'LINE channel disconnected');
    return lineChannelView(found);
  }

  private async change(actor: string, action: string, targetId: string, reason: string | null | undefined, details: Record<string, unknown>, message: string) {
    const why = reason?.trim() || null;
    this.deps.log?.info({ action, actor, targetId, reason: why, ...details }, message);
    await recordAdminEvent(this.deps.store, this.now(), { actor, action, targetId, reason: why, details });
  }
}
