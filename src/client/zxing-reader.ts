// ZXing-C++ (its WebAssembly build, npm `zxing-wasm`) reading QR codes. The
// module is loaded from the package's own .wasm file on disk: left alone, the
// package would fetch it from a CDN, and a slip server must not depend on (or
// run code from) a network address at run time.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { prepareZXingModule, purgeZXingModule, readBarcodes, type ReaderOptions } from 'zxing-wasm/reader';

const WASM_FILE = createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm');

let wasmBinary: ArrayBuffer | undefined;
let prepared = false;

function prepare(): void {
  if (prepared) return;
  if (!wasmBinary) {
    const file = readFileSync(WASM_FILE);
    wasmBinary = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
  }
  // wasmBinary means nothing is fetched; locateFile is pinned to the same file in case the glue still asks.
  prepareZXingModule({ overrides: { wasmBinary, locateFile: () => WASM_FILE } });
  prepared = true;
}

/** Gray or RGBA pixels, row by row. */
export interface PixelImage {
  data: Uint8Array | Uint8ClampedArray;
  width: number;
  height: number;
  channels: 1 | 4;
}

/** How hard to look: the first look is the cheap one; the harder one is for the pictures it missed. */
export type ReadEffort = 'fast' | 'hard';

const OPTIONS: Record<ReadEffort, ReaderOptions> = {
  // QR finding is rotation-invariant, and slips are dark on light: turning and inverting only cost.
  // One symbol: the search stops at the first QR (a screenshot's only one, nearly always).
  fast: { formats: ['QRCode'], tryHarder: false, tryRotate: false, tryInvert: false, tryDownscale: true, maxNumberOfSymbols: 1 },
  hard: { formats: ['QRCode'], tryHarder: true, tryRotate: true, tryInvert: true, tryDownscale: true, tryDenoise: true, maxNumberOfSymbols: 4 },
};

/**
 * The texts of the QR codes read from an encoded PNG or JPEG file (decoded
 * inside the WebAssembly module) or from pixels. Throws when the file cannot
 * be decoded; the caller then tries another decoder.
 */
export async function readQrTexts(input: Uint8Array | PixelImage, effort: ReadEffort): Promise<string[]> {
  prepare();
  const source = input instanceof Uint8Array ? input : toImageData(input);
  try {
    const results = await readBarcodes(source as Parameters<typeof readBarcodes>[0], OPTIONS[effort]);
    return results.filter((r) => r.isValid && r.text !== '').map((r) => r.text);
  } catch (err) {
    // A trap (out-of-bounds access, abort) may leave the module's memory in any
    // state: the next picture gets a fresh instance.
    if (err instanceof WebAssembly.RuntimeError) {
      purgeZXingModule();
      prepared = false;
    }
    throw err;
  }
}

/** The package takes RGBA ImageData-shaped objects; gray is spread to RGBA. */
function toImageData(p: PixelImage): { data: Uint8ClampedArray; width: number; height: number } {
  if (p.channels === 4) return { data: new Uint8ClampedArray(p.data.buffer, p.data.byteOffset, p.data.byteLength), width: p.width, height: p.height };
  const rgba = new Uint8ClampedArray(p.width * p.height * 4);
  for (let i = 0, o = 0; i < p.width * p.height; i++, o += 4) {
    const v = p.data[i]!;
    rgba[o] = v;
    rgba[o + 1] = v;
    rgba[o + 2] = v;
    rgba[o + 3] = 255;
  }
  return { data: rgba, width: p.width, height: p.height };
}
