// Scenario I's memory phase (#48): 64 camera photos in flight, as base64 in
// JSON (the heaviest form: the body, its string and the decoded bytes are all
// held while a picture waits for a decoder thread), sent to a slipgate
// process of its own, so that its peak RSS is this load's alone.
import type { HardSlipImage } from '../../test/images/hard-slip-images.js';
import { runImageFlood, type ImageRunResult } from './images.js';
import { cameraPhoto } from './pictures.js';
import type { Started } from './processes.js';
import type { BenchRun } from './run.js';

export const PHOTOS_IN_FLIGHT = 64;

export interface PhotoMemory {
  images: ImageRunResult['images'];
  peakRssBytes: number;
}

export async function photoMemory(
  run: BenchRun,
  corpus: HardSlipImage[],
  keys: string[],
  start: () => Promise<Started>,
): Promise<PhotoMemory> {
  const target = await start();
  try {
    const flood = await runImageFlood({
      url: target.url,
      apiKeys: keys,
      durationSec: run.args.quick ? 5 : 15,
      imageConcurrency: PHOTOS_IN_FLIGHT,
      qrcodeRate: 0,
      picture: { bytes: cameraPhoto(corpus), form: 'json' },
    });
    return { images: flood.images, peakRssBytes: target.peakRssBytes() };
  } finally {
    await target.stop();
  }
}

/** The phase's lines for the results file. */
export function photoMemoryLines(runs: Array<{ revision?: string; engine: string; round: number; photos?: PhotoMemory }>): string[] {
  const measured = runs.filter((r) => r.photos);
  if (measured.length === 0) return [];
  return [
    `${PHOTOS_IN_FLIGHT} camera photos in flight (\`camera-12mp-1\`, base64 JSON), each round in a fresh slipgate process: its peak RSS.`,
    '',
    '| slipgate | engine | round | pictures/s | verified | 429 | other | peak RSS MB |',
    '|---|---|--:|--:|--:|--:|--:|--:|',
    ...measured.map(({ revision, engine, round, photos }) => {
      const i = photos!.images;
      return `| ${revision ?? 'this tree'} | ${engine} | ${round} | ${i.perSec.toFixed(1)} | ${i.verified} | ${i.refused429} | ${i.other} | ${(photos!.peakRssBytes / 2 ** 20).toFixed(0)} |`;
    }),
    '',
  ];
}
