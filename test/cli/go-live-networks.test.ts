// `doctor --go-live` checks each enabled domain (#57): one on a loopback or
// private address, or carrying a simulator's built-in credentials, blocks
// (a local simulator used to pass as a bank); a slip API is asked its quota
// with its free call, which shows the key works and how many checks are
// left, and a refused key blocks. Real simulators on real ports, a real process.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankSimulator, startSimulatedBank, type SimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

interface Check {
  check: string;
  state: string;
  detail: string;
  fix?: string;
}

describe('doctor --go-live: the verification networks', { timeout: 120_000 }, () => {
  const dir = tempDir('slipgate-go-live-networks-');
  const banks: SimulatedBank[] = [];
  let checks: Record<string, Check>;

  beforeAll(async () => {
    const start = async (provider: string, quota?: number) => {
      const bank = await startSimulatedBank({ provider, port: 0, ...(quota === undefined ? {} : { behavior: { quota } }) });
      banks.push(bank);
      return bank;
    };
    const slipok = await start('slipok', 7);
    const easyslip = await start('easyslip', 3);
    const rdcw = await start('rdcw');
    const upstreams = [
      // Exactly what `simulate-bank --provider slipok` prints.
      bankSimulator('slipok').entry(slipok.url, slipok.credentials),
      { name: 'easyslip-1', provider: 'easyslip', baseUrl: easyslip.url, apiKey: 'a-key-easyslip-does-not-know' },
      { name: 'rdcw-1', provider: 'rdcw', baseUrl: rdcw.url, clientId: 'shop-client', clientSecret: 'shop-secret' },
      // Bank-direct on a public address: nothing to ask for free.
      { name: 'kbank-1', provider: 'kbank', baseUrl: 'https://203.0.113.10', clientId: 'id', clientSecret: 'secret' },
      { name: 'scb-off', provider: 'scb', baseUrl: 'http://10.0.0.5', apiKey: 'k', apiSecret: 's', enabled: false },
    ];
    const env = { ...process.env, DATABASE_URL: `sqlite:${join(dir.path, 'go-live.db')}`, PUBLIC_URL: '', SECRETS_KEY: '', UPSTREAMS: JSON.stringify(upstreams), UPSTREAMS_FILE: '' };
    const slipgate = (...args: string[]) => new Promise<string>((resolve) => execFile(process.execPath, [...SLIPGATE_CLI, ...args], { env }, (_err, out) => resolve(out)));
    // The database the server would have made.
    await slipgate('accounts', 'create', '--name', 'Shop', '--credits', '0');
    const stdout = await slipgate('doctor', '--go-live', '--json');
    checks = Object.fromEntries((JSON.parse(stdout) as { checks: Check[] }).checks.map((c) => [c.check, c]));
  });
  afterAll(async () => {
    for (const bank of banks) await bank.close();
    dir.remove();
  });

  it("blocks a simulator: its loopback address and its built-in credentials, while still reading its quota", () => {
    const sim = checks['network slipok-sim']!;
    expect(sim.state).toBe('blocks');
    expect(sim.detail).toMatch(/^http:\/\/127\.0\.0\.1:\d+ is a loopback, private or link-local address \(127\.0\.0\.1\): a simulator or a test server, not the provider; it carries the simulator's built-in credentials; quota call answered: 7 checks left$/);
    expect(sim.fix).toContain("the provider's own address");
  });

  it('blocks a key the provider refuses, naming why', () => {
    const refused = checks['network easyslip-1']!;
    expect(refused.state).toBe('blocks');
    expect(refused.detail).toContain('the provider refused it');
    expect(refused.fix).toContain("easyslip-1's key");
    // The key itself is never printed.
    expect(JSON.stringify(checks)).not.toContain('a-key-easyslip-does-not-know');
  });

  it('says when a provider has no free quota call, and passes a bank-direct domain on a public address', () => {
    expect(checks['network rdcw-1']!.detail).toContain('quota not read: RDCW reports its quota only with a verification');
    expect(checks['network kbank-1']).toEqual({ check: 'network kbank-1', state: 'ok', detail: 'bank-direct: its credentials are first used by a verification' });
    // A disabled domain is not checked.
    expect(checks['network scb-off']).toBeUndefined();
    expect(checks['bank network']).toMatchObject({ state: 'ok' });
  });
});
