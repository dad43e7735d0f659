// A slipgate with one LINE channel connected to a fresh account, and the
// LINE platform simulator playing that channel's customers against it.
import { randomBytes } from 'node:crypto';
import { startLineSimulator, type LineSimulator, type SimLogEntry } from '../../src/line/simulator/line-simulator.js';
import { afterAll } from 'vitest';
import { startApp, type TestApp, type TestAppOptions } from './app.js';
import { eventually } from './child.js';

export interface LineRig {
  app: TestApp;
  sim: LineSimulator;
  accountId: string;
  /** The account's API key, for verifications outside the chat. */
  apiKey: string;
  channelId: string;
  channelSecret: string;
  accessToken: string;
  webhookUrl: string;
  /** Sends through the simulator's control API; answers its JSON. */
  control(path: string, body?: unknown): Promise<any>;
  /** Waits until the chat log has `n` entries of `kind` (reply and push count as answers). */
  answers(n: number): Promise<SimLogEntry[]>;
  credits(): Promise<number>;
  stop(): Promise<void>;
}

export const SECRETS_KEY = randomBytes(32).toString('hex');

export async function startLineRig(opts: TestAppOptions & { credits?: number; lang?: 'th' | 'en'; checks?: boolean; matchPaymentRequests?: boolean; hints?: boolean } = {}): Promise<LineRig> {
  const channelId = String(1_000_000_000 + Math.floor(Math.random() * 8_999_999_999));
  const channelSecret = randomBytes(16).toString('hex');
  const accessToken = randomBytes(32).toString('base64url');
  const sim = await startLineSimulator({ port: 0, channelId, channelSecret, accessToken, slipgateUrl: 'http://127.0.0.1:1' });
  const app = await startApp({ ...opts, env: { SECRETS_KEY, LINE_API_BASE_URL: sim.url, LINE_DATA_API_BASE_URL: sim.url, ...opts.env } });
  sim.setSlipgate(app.publicUrl);
  const { accountId, apiKey } = await app.account(opts.credits ?? 5);
  await app.lineChannels.connect('admin:test', accountId, { channelId, channelSecret, accessToken, lang: opts.lang ?? 'en', checks: opts.checks ?? true, matchPaymentRequests: opts.matchPaymentRequests ?? false, hints: opts.hints ?? false });
  const answers = async (n: number) => {
    const chat = () => sim.log.filter((e) => e.kind !== 'loading');
    await eventually(async () => chat().length >= n);
    return chat();
  };
  const rig: LineRig = {
    app,
    sim,
    accountId,
    apiKey,
    channelId,
    channelSecret,
    accessToken,
    webhookUrl: `${app.publicUrl}/line/webhook/${channelId}`,
    async control(path, body) {
      const res = await fetch(sim.url + path, { method: 'POST', ...(body === undefined ? {} : { body: Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body) }) });
      return res.json();
    },
    answers,
    // rig.app, not app: a test may restart slipgate on the same database.
    async credits() {
      return (await rig.app.store.getAccount(accountId))!.credits;
    },
    async stop() {
      await rig.app.stop();
      await sim.close();
    },
  };
  return rig;
}

type RigOptions = Parameters<typeof startLineRig>[0];

/** Starts rigs for one test file and stops them all after it (call at the file's top level). */
export function rigsOfThisFile(): (opts?: RigOptions) => Promise<LineRig> {
  const rigs: LineRig[] = [];
  afterAll(async () => {
    for (const rig of rigs) await rig.stop().catch(() => {});
  });
  return async (opts = {}) => {
    const rig = await startLineRig(opts);
    rigs.push(rig);
    return rig;
  };
}

/** A customer of the rig's channel sends a text message. */
export const sendText = (rig: LineRig, text: string, user = 'U00000000000000000000000000000001') => rig.control(`/sim/send-text?user=${user}`, { text });
