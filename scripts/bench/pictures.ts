// Scenario I in the results file: pictures per second and CPU per picture of
// a flood of phone screenshots, the QR-text latencies beside it, and the
// decode rate of the server on the hard corpus (test/images/hard-slip-images.ts),
// for this tree and, with --against, another revision in the same rounds.
import { photoMemoryLines, type PhotoMemory } from './photo-memory.js';
import { HARD_KINDS, type HardSlipImage } from '../../test/images/hard-slip-images.js';
import sharp from 'sharp';
import { decodeSlipImage } from '../../src/slip-image/decode-image.js';
import type { ImageRunResult, PictureForm } from './images.js';

/**
 * Beside the screenshot as base64 JSON (`alone`): the same screenshot as
 * bytes, and a 12-megapixel camera photo (the hard corpus's photo of a slip
 * on paper) both ways; each alone, in the same rounds. Then the screenshot
 * one at a time, as a shop's pictures mostly come: a decoder thread with
 * an idle core beside it, where waking other threads costs most.
 */
export const PICTURE_VARIANTS: { picture: 'screenshot' | 'camera'; form: PictureForm; inFlight?: number }[] = [
  { picture: 'screenshot', form: 'bytes' },
  { picture: 'camera', form: 'json' },
  { picture: 'camera', form: 'bytes' },
  { picture: 'screenshot', form: 'json', inFlight: 1 },
];

const ONE_AT_A_TIME = 'screenshot, base64 JSON, one at a time';

/**
 * What is left of a picture's read that is the PNG or JPEG decode itself:
 * CPU per picture, in this process, of the decode the first look does (one
 * channel; the photo at 1/4) and of the whole read (decodeSlipImage).
 */
export async function decodeFloor(screenshot: Buffer, camera: Buffer): Promise<DecodeFloor> {
  // As in slipgate's decoder threads (src/images/decode-worker.ts).
  sharp.cache(false);
  sharp.concurrency(1);
  const cpuPer = async (work: () => Promise<unknown>): Promise<number> => {
    for (let i = 0; i < 3; i++) await work();
    const n = 20;
    const start = process.cpuUsage();
    for (let i = 0; i < n; i++) await work();
    const spent = process.cpuUsage(start);
    return (spent.user + spent.system) / 1000 / n;
  };
  const decode = (bytes: Buffer, width?: number) => {
    const p = sharp(bytes);
    return (width ? p.resize({ width, kernel: 'nearest' }) : p).extractChannel(1).raw().toBuffer();
  };
  return {
    screenshot: { decode: await cpuPer(() => decode(screenshot)), read: await cpuPer(() => decodeSlipImage(screenshot)) },
    camera: { decode: await cpuPer(() => decode(camera, 1000)), read: await cpuPer(() => decodeSlipImage(camera)) },
  };
}

export interface DecodeFloor {
  screenshot: { decode: number; read: number };
  camera: { decode: number; read: number };
}

/** The 4000×3000 JPEG the camera variants send. */
export function cameraPhoto(corpus: HardSlipImage[]): Buffer {
  const photo = corpus.find((p) => p.name === 'camera-12mp-1');
  if (!photo) throw new Error('the hard corpus has no camera-12mp-1');
  return photo.image;
}

export interface PictureRun {
  engine: string;
  round: number;
  /** Set when slipgate was built from another revision (--against). */
  revision?: string;
  /** The pictures with nothing beside them: CPU seconds of slipgate (all threads) and of the database server. */
  alone: { images: ImageRunResult['images']; cpu: number; db: number };
  /** This tree only: the decode's share of a read, measured in the bench process before slipgate starts. */
  floor?: DecodeFloor;
  /** PICTURE_VARIANTS, each alone: CPU seconds of slipgate (all threads). */
  variants: Array<(typeof PICTURE_VARIANTS)[number] & { images: ImageRunResult['images']; cpu: number }>;
  /** The same flood with QR texts beside it. */
  flood: ImageRunResult;
  /**
   * CPU seconds during the flood: slipgate (all threads), the database server
   * (0 on SQLite), and slipgate's less what the QR texts beside the flood cost
   * at the CPU per text measured on the same server just before.
   */
  cpu: { target: number; db: number; netOfTexts: number };
  corpus: CorpusRate;
  /** 64 camera photos in flight in a fresh process (photo-memory.ts). */
  photos?: PhotoMemory;
}

export interface CorpusRate {
  read: number;
  total: number;
  byKind: Record<string, string>;
}

/** Sends each corpus picture to a running slipgate, two at a time, and counts those it verified with the right QR. */
export async function corpusRate(url: string, apiKeys: string[], corpus: HardSlipImage[]): Promise<CorpusRate> {
  const ok = new Map<HardSlipImage, boolean>();
  let next = 0;
  const sender = async () => {
    while (next < corpus.length) {
      const picture = corpus[next]!;
      const res = await fetch(`${url}/api/v1/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKeys[next++ % apiKeys.length]! },
        body: JSON.stringify({ image: picture.image.toString('base64') }),
      });
      const body = (await res.json()) as { status?: string; qrcode?: string };
      ok.set(picture, body.status === 'success' && body.qrcode === picture.qrcode);
    }
  };
  await Promise.all([sender(), sender()]);
  const byKind = Object.fromEntries(
    HARD_KINDS.map((kind) => {
      const of = corpus.filter((p) => p.kind === kind);
      return [kind, `${of.filter((p) => ok.get(p)).length}/${of.length}`];
    }),
  );
  return { read: [...ok.values()].filter(Boolean).length, total: corpus.length, byKind };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const perPicture = (seconds: number, r: PictureRun) => (r.flood.images.verified > 0 ? (seconds * 1000) / r.flood.images.verified : Number.NaN);

const perAlone = (seconds: number, r: PictureRun) => (r.alone.images.verified > 0 ? (seconds * 1000) / r.alone.images.verified : Number.NaN);

export function pictureSection(runs: PictureRun[]): string[] {
  if (runs.length === 0) return [];
  const out = [
    '## Scenario I: slip pictures',
    '',
    '8 pictures in flight (a 1080×2340 PNG phone screenshot from `phoneScreenshot()`, `{"image": base64}`), first alone, then',
    'with 100 QR-text verifications/s beside them, then the hard corpus (40 pictures, 5 of each kind) sent two at a time to the',
    'same server. CPU per picture is user + system CPU of the slipgate process, all threads, during a flood, divided by the',
    'pictures verified, after a 2 s warm-up flood (threads load their decoder on the first picture). "alone" is the pictures',
    'with nothing beside them: the cost of a picture, which the ≤ 35 ms target is judged on. "net" takes out the QR texts',
    'beside the second flood, at the CPU per text measured on the same server just before (5 s of texts alone at the same rate).',
    '',
    '| slipgate | engine | round | alone: pictures/s | alone: CPU ms/picture | beside texts: pictures/s | verified | 429 | other | CPU ms/picture | net of texts | db CPU ms/picture | QR text ok | QR text p50 / p99 ms | corpus read | by kind |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|---|',
  ];
  for (const r of runs) {
    const { images } = r.flood;
    const qrcode = r.flood.qrcode!;
    out.push(
      `| ${r.revision ?? 'this tree'} | ${r.engine} | ${r.round} | ${r.alone.images.perSec.toFixed(1)} | ${perAlone(r.alone.cpu, r).toFixed(1)} | ` +
        `${images.perSec.toFixed(1)} | ${images.verified} | ${images.refused429} | ${images.other} | ` +
        `${perPicture(r.cpu.target, r).toFixed(1)} | ${perPicture(r.cpu.netOfTexts, r).toFixed(1)} | ${perPicture(r.cpu.db, r).toFixed(1)} | ${qrcode.successes} of ${qrcode.responses} | ` +
        `${qrcode.latencyMs.p50.toFixed(1)} / ${qrcode.latencyMs.p99.toFixed(1)} | ${r.corpus.read}/${r.corpus.total} | ${Object.entries(r.corpus.byKind).map(([k, v]) => `${k} ${v}`).join(', ')} |`,
    );
  }
  out.push('');
  out.push(...variantSection(runs));
  out.push(...photoMemoryLines(runs));
  const mine = runs.filter((r) => !r.revision);
  const theirs = runs.filter((r) => r.revision);
  if (mine.length > 0 && theirs.length > 0) {
    const rate = (rs: PictureRun[]) => median(rs.map((r) => r.alone.images.perSec));
    const cpu = (rs: PictureRun[]) => median(rs.map((r) => perAlone(r.alone.cpu, r)));
    const net = (rs: PictureRun[]) => median(rs.map((r) => perPicture(r.cpu.netOfTexts, r)));
    const corpus = (rs: PictureRun[]) => median(rs.map((r) => r.corpus.read));
    out.push(
      `Medians, pictures alone: this tree ${rate(mine).toFixed(1)} pictures/s at ${cpu(mine).toFixed(1)} ms CPU per picture; ${theirs[0]!.revision} ${rate(theirs).toFixed(1)} pictures/s at ` +
        `${cpu(theirs).toFixed(1)} ms (${(cpu(theirs) / cpu(mine)).toFixed(2)}× less). Beside the QR texts, net of them: ${net(mine).toFixed(1)} and ${net(theirs).toFixed(1)} ms. ` +
        `Pictures/s ${(rate(mine) / rate(theirs)).toFixed(2)}× (target ≥ 3×: ${rate(mine) / rate(theirs) >= 3 ? '**met**' : '**MISSED**'}); ` +
        `CPU per picture ≤ 35 ms: ${cpu(mine) <= 35 ? '**met**' : '**MISSED**'}; corpus ${corpus(mine)} vs ${corpus(theirs)} of ${mine[0]!.corpus.total} ` +
        `(not lower: ${corpus(mine) >= corpus(theirs) ? '**met**' : '**MISSED**'}).`,
      '',
    );
  }
  return out;
}

/** CPU per picture of each picture and form, alone, per round: what #48's ratios are judged on (docs/pictures.md). */
function variantSection(runs: PictureRun[]): string[] {
  const per = (cpu: number, verified: number) => (verified > 0 ? (cpu * 1000) / verified : Number.NaN);
  const rows = runs.flatMap((r) => [
    { r, name: 'screenshot, base64 JSON', cpu: per(r.alone.cpu, r.alone.images.verified), images: r.alone.images },
    ...r.variants.map((v) => ({ r, name: `${v.picture}, ${v.form === 'json' ? 'base64 JSON' : 'bytes'}${v.inFlight === 1 ? ', one at a time' : ''}`, cpu: per(v.cpu, v.images.verified), images: v.images })),
  ]);
  const out = [
    'Each picture and form alone, 8 in flight unless said (screenshot: the 1080×2340 PNG; camera: `camera-12mp-1` of the hard corpus, a 4000×3000 JPEG of 2 MB;',
    'bytes: the raw body, `Content-Type: image/png` or `image/jpeg`). A revision without the byte form has only the JSON rows.',
    '',
    '| slipgate | engine | round | picture, form | pictures/s | verified | 429 | other | CPU ms/picture |',
    '|---|---|--:|---|--:|--:|--:|--:|--:|',
    ...rows.map(({ r, name, cpu, images }) => `| ${r.revision ?? 'this tree'} | ${r.engine} | ${r.round} | ${name} | ${images.perSec.toFixed(1)} | ${images.verified} | ${images.refused429} | ${images.other} | ${cpu.toFixed(1)} |`),
    '',
  ];
  const of = (revision: boolean, name: string) => median(rows.filter((x) => Boolean(x.r.revision) === revision && x.name === name && Number.isFinite(x.cpu)).map((x) => x.cpu));
  const shotJson = of(false, 'screenshot, base64 JSON');
  const shotBytes = of(false, 'screenshot, bytes');
  const camera = of(false, 'camera, bytes');
  const theirs = of(true, 'screenshot, base64 JSON');
  const oneAtATime = { mine: of(false, ONE_AT_A_TIME), theirs: of(true, ONE_AT_A_TIME) };
  const lines = [
    `Medians, this tree: screenshot as bytes ${shotBytes.toFixed(1)} ms, as base64 JSON ${shotJson.toFixed(1)} ms (bytes ${((1 - shotBytes / shotJson) * 100).toFixed(0)}% below; target ≥ 10%); ` +
      `camera photo as bytes ${camera.toFixed(1)} ms, ${(camera / shotBytes).toFixed(2)}× the screenshot (target ≤ 2×).`,
  ];
  if (Number.isFinite(theirs)) {
    lines.push(`Screenshot as base64 JSON against ${runs.find((r) => r.revision)!.revision}: ${shotJson.toFixed(1)} ms vs ${theirs.toFixed(1)} ms (${(shotJson / theirs).toFixed(2)}×; target ≤ 0.5×); as bytes ${(shotBytes / theirs).toFixed(2)}×.`);
    lines.push(`One at a time, as base64 JSON: ${oneAtATime.mine.toFixed(1)} ms vs ${oneAtATime.theirs.toFixed(1)} ms (${(oneAtATime.mine / oneAtATime.theirs).toFixed(2)}×).`);
  }
  const floors = runs.flatMap((r) => (r.floor ? [r.floor] : []));
  if (floors.length > 0) {
    const f = (get: (x: DecodeFloor) => number) => median(floors.map(get));
    const line = (name: string, get: (x: DecodeFloor) => { decode: number; read: number }) =>
      `${name}: the decode ${f((x) => get(x).decode).toFixed(1)} ms of the read's ${f((x) => get(x).read).toFixed(1)} ms (${((f((x) => get(x).decode) / f((x) => get(x).read)) * 100).toFixed(0)}%)`;
    lines.push(
      `The floor, in the bench process alone (one thread; medians of ${floors.length} rounds): ${line('screenshot (PNG, one channel at full size)', (x) => x.screenshot)}; ` +
        `${line('camera photo (JPEG, one channel decoded at 1/4)', (x) => x.camera)}.`,
    );
  }
  return [...out, ...lines, ''];
}
