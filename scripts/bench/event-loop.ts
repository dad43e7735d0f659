// Event-loop delay of slipgate during a measured run, read from its own
// Prometheus metrics (prom-client's nodejs_eventloop_lag_*, which reset at
// every scrape): one scrape before the run starts the window, one after reads it.
import { jsonLines, readLines } from './processes.js';

export interface EventLoopDelay {
  p99Ms: number;
  maxMs: number;
}

/** The admin listener's URL from slipgate's startup log line. */
export function adminUrlOf(logFile: string): string | undefined {
  return jsonLines(readLines(logFile)).find((e) => e.msg === 'slipgate listening')?.adminUrl as string | undefined;
}

async function scrape(adminUrl: string): Promise<string> {
  const res = await fetch(`${adminUrl}/metrics`);
  return res.ok ? res.text() : '';
}

function gauge(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) * 1000 : Number.NaN;
}

/** Starts a window; the function it returns reads the delay seen since. Undefined without an admin URL. */
export async function eventLoopWindow(adminUrl: string | undefined): Promise<(() => Promise<EventLoopDelay>) | undefined> {
  if (!adminUrl) return undefined;
  await scrape(adminUrl).catch(() => '');
  return async () => {
    const text = await scrape(adminUrl).catch(() => '');
    return { p99Ms: gauge(text, 'nodejs_eventloop_lag_p99_seconds'), maxMs: gauge(text, 'nodejs_eventloop_lag_max_seconds') };
  };
}
