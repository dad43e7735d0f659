// `slipgate simulate-line`: a local LINE platform (src/line/simulator) that
// plays a channel's customers against a running slipgate, for tests and demos.
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { parseChannelId } from '../domain/line/channels.js';
import { InputError } from '../domain/errors.js';
import { startLineSimulator, type LineSimulator } from '../line/simulator/line-simulator.js';

export interface SimulateLineFlags {
  port: string;
  host: string;
  slipgate: string;
  channelId: string;
  channelSecret?: string;
  accessToken?: string;
}

export function registerSimulateLineCommand(program: Command): void {
  program
    .command('simulate-line')
    .description("run a simulated LINE platform: customers of one channel send slips to slipgate's webhook; replies are recorded (GET /sim/log)")
    .option('--port <port>', 'port to listen on (0 = any free port)', '9100')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--slipgate <url>', "slipgate's public listener", 'http://127.0.0.1:3000')
    .option('--channel-id <id>', 'the simulated channel id', '1234567890')
    .option('--channel-secret <secret>', 'the channel secret events are signed with (default: a new one)')
    .option('--access-token <token>', 'the access token slipgate must call with (default: a new one)')
    .action(async (flags: SimulateLineFlags) => {
      const sim = await simulateLine(flags, (line) => console.log(line));
      const stop = () => {
        sim.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}

async function simulateLine(flags: SimulateLineFlags, print: (line: string) => void): Promise<LineSimulator> {
  const port = Number(flags.port);
  if (!/^\d+$/.test(flags.port.trim()) || port > 65_535) throw new InputError('--port must be a whole number from 0 to 65535');
  const channelId = parseChannelId(flags.channelId);
  const channelSecret = flags.channelSecret ?? randomBytes(16).toString('hex');
  const accessToken = flags.accessToken ?? randomBytes(32).toString('base64url');
  const sim = await startLineSimulator({ port, host: flags.host, channelId, channelSecret, accessToken, slipgateUrl: flags.slipgate });
  print(`simulated LINE platform listening on ${sim.url}, sending channel ${channelId}'s events to ${flags.slipgate}/line/webhook/${channelId}`);
  print('start slipgate with:');
  print(`  LINE_API_BASE_URL=${sim.url} LINE_DATA_API_BASE_URL=${sim.url} SECRETS_KEY=… npx slipgate serve`);
  print('connect the channel with:');
  print(`  npx slipgate line connect <accountId> --channel-id ${channelId} --channel-secret ${channelSecret} --access-token ${accessToken}`);
  print(`send a slip as a customer: curl -s -X POST '${sim.url}/sim/send-image?qrcode=<slip QR>'; read the chat: curl -s ${sim.url}/sim/log`);
  return sim;
}
