// Every bank provider slipgate knows, one line each. A new bank is a folder
// with a provider.ts (see provider.ts for what it supplies) and a line here.
import { easyslipProvider } from './easyslip/provider.js';
import { kbankProvider } from './kbank/provider.js';
import type { BankProvider } from './provider.js';
import { rdcwProvider } from './rdcw/provider.js';
import { sandboxProvider } from './sandbox/provider.js';
import { scbProvider } from './scb/provider.js';
import { slip2goProvider } from './slip2go/provider.js';
import { slipokProvider } from './slipok/provider.js';

const providers = new Map<string, BankProvider>();

/** Adds a provider (tests and embedders add their own); ids are unique. */
export function registerBankProvider(provider: BankProvider): void {
  if (providers.has(provider.id)) throw new Error(`bank provider "${provider.id}" is already registered`);
  providers.set(provider.id, provider);
}

registerBankProvider(kbankProvider);
registerBankProvider(scbProvider);
registerBankProvider(sandboxProvider);
registerBankProvider(slipokProvider);
registerBankProvider(rdcwProvider);
registerBankProvider(easyslipProvider);
registerBankProvider(slip2goProvider);

export function bankProvider(id: string): BankProvider | undefined {
  return providers.get(id);
}

export function bankProviders(): BankProvider[] {
  return [...providers.values()];
}

/** The providers `slipgate simulate-bank` can stand in for. */
export function simulatedProviders(): BankProvider[] {
  return bankProviders().filter((p) => p.simulator !== undefined);
}
