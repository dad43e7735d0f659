// Scenario I in the results file: pictures per second and CPU per picture of
// a flood of phone screenshots, the QR-text latencies beside it, and the
// decode rate of the server on the hard corpus (test/images/hard-slip-images.ts),
// for this tree and, with --against, another revision in the same rounds.
import { HARD_KINDS, type HardSlipImage } from '../../test/images/hard-slip-images.js';
import type { ImageRunResult } from './images.js';

export interface PictureRun {
  engine: string;
  round: number;
  /** Set when slipgate was built from another revision (--against). */
  revision?: string;
  /** The pictures with nothing beside them: CPU seconds of slipgate (all threads) and of the database server. */
  alone: { images: ImageRunResult['images']; cpu: number; db: number };
  /** The same flood with QR texts beside it. */
  flood: ImageRunResult;
  /**
   * CPU seconds during the flood: slipgate (all threads), the database server
   * (0 on SQLite), and slipgate's less what the QR texts beside the flood cost
   * at the CPU per text measured on the same server just before.
   */
  cpu: { target: number; db: number; netOfTexts: number };
  corpus: CorpusRate;
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
    'with 100 QR-text verifications/s beside them, then the hard corpus (35 pictures, 5 of each kind) sent two at a time to the',
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
