// A LINE Official Account channel connected to a merchant account: slips
// its customers send in chat are verified as picture verifications of that
// account and answered in the chat (docs/line.md).

export const LINE_LANGUAGES = ['th', 'en'] as const;
export type LineLanguage = (typeof LINE_LANGUAGES)[number];

export interface LineChannel {
  /** LINE's own channel id (digits); the webhook URL names it. */
  channelId: string;
  accountId: string;
  /** The channel secret and access token as stored (secret-box.ts): sealed with SECRETS_KEY, never shown again. */
  sealedSecret: string;
  sealedToken: string;
  /** The language of the replies. */
  lang: LineLanguage;
  /** Whether the duplicate check and the account's receiver policy decide the reply (on by default). */
  checks: boolean;
  /** Whether a verified slip pays the account's pending payment request it matches (line/payment-match.ts). */
  matchPaymentRequests: boolean;
  /** Whether chat that is not a slip (text, stickers, pictures without a slip QR) is answered with a hint; off: such messages get no bot message. */
  hints: boolean;
  createdAt: Date;
}

/** A channel as shown to people: its secrets only masked. */
export type LineChannelView = Omit<LineChannel, 'sealedSecret' | 'sealedToken'> & { secret: string; accessToken: string };

/** Mask shown in place of a secret once it is set: it says one is there and nothing of it. */
const MASKED = '••••••••';

export function lineChannelView({ sealedSecret: _s, sealedToken: _t, ...view }: LineChannel): LineChannelView {
  return { ...view, secret: MASKED, accessToken: MASKED };
}

/** Who at the shop is pushed the slips that need a person (docs/line.md#staff-notifications): a LINE user, group or room id. */
export interface LineStaffTarget {
  channelId: string;
  targetId: string;
  createdAt: Date;
}

/** A group or room the channel's bot was added to (LINE's join event); `leftAt` once it left or was removed. */
export interface LineGroup {
  channelId: string;
  groupId: string;
  kind: 'group' | 'room';
  joinedAt: Date;
  leftAt: Date | null;
}

/** A webhook event id seen for a channel: redeliveries of it are ignored, across restarts. */
export interface LineEventClaim {
  channelId: string;
  eventId: string;
  at: Date;
}
