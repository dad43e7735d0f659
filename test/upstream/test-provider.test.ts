// A provider registered from outside src/ (a descriptor and nothing else) is
// selectable in UPSTREAMS, served by `slipgate simulate-bank`, verifies slips
// end to end, and passes the same conformance suite as the built-in banks.
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { registerSimulateBankCommand, simulateBank } from '../../src/cli/simulate-bank.js';
import { loadUpstreamConfigs, UpstreamConfigError } from '../../src/upstream/config.js';
import { registerBankProvider } from '../../src/upstream/registry.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import type { SimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';
import { testBankProvider } from '../fixtures/test-bank-provider.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { adapterConformance } from './conformance.js';

registerBankProvider(testBankProvider);

describe('a provider registered by its descriptor alone', () => {
  let bank: SimulatedBank | undefined;
  let app: TestApp | undefined;
  afterAll(async () => {
    await app?.stop();
    await bank?.close();
  });

  it('is selectable in UPSTREAMS, with its own fields validated', () => {
    const [config] = loadUpstreamConfigs({ UPSTREAMS: JSON.stringify([{ name: 'tb-1', provider: 'testbank', baseUrl: 'http://127.0.0.1:1', key: 'k' }]) });
    expect(config).toMatchObject({ name: 'tb-1', provider: 'testbank', key: 'k', weight: 1, enabled: true });
    expect(() => loadUpstreamConfigs({ UPSTREAMS: JSON.stringify([{ name: 'tb-1', provider: 'testbank', baseUrl: 'http://127.0.0.1:1' }]) })).toThrow(
      /UPSTREAMS\[0\] \("tb-1"\) key: is required/,
    );
    expect(() => loadUpstreamConfigs({ UPSTREAMS: JSON.stringify([{ name: 'x', provider: 'nobank' }]) })).toThrow(UpstreamConfigError);
    expect(() => loadUpstreamConfigs({ UPSTREAMS: JSON.stringify([{ name: 'x', provider: 'nobank' }]) })).toThrow(/"testbank"/);
  });

  it('is offered and served by simulate-bank, and slipgate verifies through it', async () => {
    const program = new Command();
    registerSimulateBankCommand(program);
    expect(program.commands.find((c) => c.name() === 'simulate-bank')!.helpInformation()).toMatch(/testbank/);

    const lines: string[] = [];
    bank = await simulateBank({ provider: 'testbank', port: '0', host: '127.0.0.1', latencyMs: '0', errorRate: '0' }, (line) => lines.push(line));
    const upstreams = /UPSTREAMS='(.*)'/.exec(lines.join('\n'))?.[1];
    expect(JSON.parse(upstreams!)).toEqual([{ name: 'testbank-sim', provider: 'testbank', baseUrl: bank.url, key: 'testbank-shared-key' }]);

    app = await startApp({ upstream: null, env: { UPSTREAMS: upstreams! } });
    const { apiKey } = await app.account(1);
    const answer = await app.verify(apiKey, sandboxQr({ amount: 42 }));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'success', data: { amount: 42 } });
    expect(bank.state.calls.verify).toBe(1);
  });
});

adapterConformance(testBankProvider);
