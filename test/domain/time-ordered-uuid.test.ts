import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/keys/api-key.js';
import { timeOrderedUuid } from '../../src/domain/time-ordered-uuid.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('time-ordered ids', () => {
  it('are UUIDv7: the time in the first 48 bits, version 7, RFC variant, random rest', () => {
    const at = Date.UTC(2026, 10, 24, 10, 0, 0, 123);
    const id = timeOrderedUuid(at);
    expect(id).toMatch(UUID_V7);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
    expect(timeOrderedUuid(at)).not.toBe(id);
  });

  it('sort by the millisecond they were made in, and do not repeat', () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => timeOrderedUuid(1_790_000_000_000 + Math.floor(i / 100)));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 100; i < ids.length; i += 100) expect(ids[i]! > ids[i - 1]!).toBe(true);
  });

  it('record ids keep their shape: a kind prefix and 32 hex digits', () => {
    const id = newId('req');
    expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(id.slice(16, 17)).toBe('7');
  });
});
