// Every registered provider with a simulator passes the same suite.
import { simulatedProviders } from '../../src/upstream/registry.js';
import { adapterConformance } from './conformance.js';

for (const provider of simulatedProviders()) adapterConformance(provider);
