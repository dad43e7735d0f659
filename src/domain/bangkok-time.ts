const BANGKOK_OFFSET_MS = 7 * 3_600_000;

/** ISO 8601 in Bangkok local time with its offset: 2025-10-05T22:09:59.123+07:00. */
export function bangkokIsoTime(atMs: number = Date.now()): string {
  return new Date(atMs + BANGKOK_OFFSET_MS).toISOString().replace('Z', '+07:00');
}

/** Midnight in Bangkok (UTC+7, no daylight saving) of the day `at` falls in. */
export function bangkokDayStart(at: Date): Date {
  const day = 86_400_000;
  return new Date(Math.floor((at.getTime() + BANGKOK_OFFSET_MS) / day) * day - BANGKOK_OFFSET_MS);
}
