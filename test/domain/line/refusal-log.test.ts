// Refused LINE webhook requests are logged at most once a minute per
// address; the rest are counted and told by the address's next line.
import { describe, expect, it } from 'vitest';
import { WebhookRefusalLog } from '../../../src/domain/line/refusal-log.js';

function rig() {
  const lines: { fields: Record<string, unknown>; message: string }[] = [];
  let now = Date.UTC(2026, 0, 1, 12, 0, 0);
  const log = new WebhookRefusalLog({ warn: (fields: object, message: string) => lines.push({ fields: fields as Record<string, unknown>, message }) } as never, () => now);
  const refuse = (address: string, n = 1) => {
    for (let i = 0; i < n; i++) log.refused({ address, channelId: '123', refused: 'bad_signature', requestId: `r${i}` });
  };
  return { lines, refuse, advance: (ms: number) => (now += ms) };
}

describe('WebhookRefusalLog', () => {
  it('writes one line per address a minute, with the count the minute before did not log', () => {
    const { lines, refuse, advance } = rig();
    refuse('10.0.0.1', 50);
    refuse('10.0.0.2', 3);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toEqual({ fields: { channelId: '123', refused: 'bad_signature', requestId: 'r0' }, message: 'LINE webhook refused' });
    advance(60_000);
    refuse('10.0.0.1', 10);
    expect(lines).toHaveLength(3);
    expect(lines[2]!.fields.notLoggedLastMinute).toBe(49);
    // A minute later than that, nothing is carried from two minutes ago.
    advance(120_000);
    refuse('10.0.0.2');
    expect(lines[3]!.fields).not.toHaveProperty('notLoggedLastMinute');
  });
});
