// ZXing-C++ (its WebAssembly build, npm `zxing-wasm`) reading QR codes. The
// module is loaded from the package's own .wasm file on disk: left alone, the
// package would fetch it from a CDN, and a slip server must not depend on (or
// run code from) a network address at run time.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  BINARIZERS,
  CHARACTER_SETS,
  defaultReaderOptions,
  EAN_ADD_ON_SYMBOLS,
  getZXingModule,
  prepareZXingModule,
  purgeZXingModule,
  readBarcodes,
  TEXT_MODES,
  type ReaderOptions,
  type ZXingReaderOptions,
} from 'zxing-wasm/reader';

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

/** Gray pixels, one byte each, row by row. */
export interface GrayImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** How hard to look: the first look is the cheap one; the harder one is for the pictures it missed. */
export type ReadEffort = 'fast' | 'hard';

const OPTIONS: Record<ReadEffort, ReaderOptions> = {
  // QR finding is rotation-invariant, and slips are dark on light: turning and inverting only cost.
  // One symbol: the search stops at the first QR (a screenshot's only one, nearly always).
  // No downscaling: the full-size image is where a slip's QR is read, and ZXing builds its whole
  // pyramid of smaller copies before it looks at the first. tryHarder (every row searched for finder
  // patterns) reads more of the hard pictures on this look (106 of the 110 PNG and JPEG pictures of
  // test/images, against 101) for about 1 ms.
  fast: { formats: ['QRCode'], tryHarder: true, tryRotate: false, tryInvert: false, tryDownscale: false, maxNumberOfSymbols: 1 },
  // returnErrors: a QR found but not decoded (its checksum failed) is what tells a damaged slip QR
  // from a picture with none; decode-image.ts gives only the former its slowest looks. Found-but-unread
  // symbols count towards maxNumberOfSymbols, hence room for more than the few a slip picture has.
  hard: { formats: ['QRCode'], tryHarder: true, tryRotate: true, tryInvert: true, tryDownscale: true, tryDenoise: true, maxNumberOfSymbols: 8, returnErrors: true },
};

/** What a look found: the texts it read, and whether it also found a QR it could not read. */
export interface QrLook {
  texts: string[];
  /** A QR's finder patterns and grid were found, but its data did not decode (damaged, blurred, cut off). */
  sawUnreadQr: boolean;
}

/**
 * The texts of the QR codes read from an encoded PNG or JPEG file (decoded
 * inside the WebAssembly module) or from gray pixels. Throws when the file
 * cannot be decoded; the caller then tries another decoder.
 */
export async function readQrTexts(input: Uint8Array | GrayImage, effort: ReadEffort): Promise<string[]> {
  return (await lookForQrs(input, effort)).texts;
}

/** readQrTexts, and whether a QR was found that could not be read (on the hard look; the fast one does not ask). */
export async function lookForQrs(input: Uint8Array | GrayImage, effort: ReadEffort): Promise<QrLook> {
  prepare();
  try {
    const found = input instanceof Uint8Array ? await readBarcodes(input, OPTIONS[effort]) : await readGray(input, effort);
    return {
      texts: found.filter((r) => r.isValid && r.text !== '').map((r) => r.text),
      sawUnreadQr: found.some((r) => !r.isValid),
    };
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

/**
 * Gray pixels straight into the module. The package's own entry takes RGBA
 * only, and turns it back into gray in JavaScript: for a phone screenshot that
 * is 10 MB spread and read again, about a third of what reading it costs.
 * `readBarcodesFromPixmap` is the function that entry calls with the gray
 * copy; its options are the package's, in the module's own form.
 */
async function readGray(image: GrayImage, effort: ReadEffort): Promise<Found[]> {
  if (image.data.length !== image.width * image.height) throw new Error('gray image: data does not match width × height');
  const zxing = (await getZXingModule()) as Awaited<ReturnType<typeof getZXingModule>> & EmscriptenHeap;
  const at = zxing._malloc(image.data.length);
  if (!at) throw new Error(`could not allocate ${image.data.length} bytes in the decoder's memory`);
  try {
    zxing.HEAPU8.set(image.data, at);
    const results = zxing.readBarcodesFromPixmap(at, image.width, image.height, NATIVE_OPTIONS[effort]);
    try {
      const found: Found[] = [];
      for (let i = 0; i < results.size(); i++) {
        const r = results.get(i);
        if (r) found.push({ isValid: r.isValid, text: r.text });
      }
      return found;
    } finally {
      // The vector lives in the module's memory; freed now rather than whenever V8 finalizes its handle.
      (results as { delete?: () => void }).delete?.();
    }
  } finally {
    zxing._free(at);
  }
}

/** The part of a module's result this reader uses. */
interface Found {
  isValid: boolean;
  text: string;
}

/** What the module has as an Emscripten module: its memory and allocator (typed by @types/emscripten, which this project does not load). */
interface EmscriptenHeap {
  HEAPU8: Uint8Array;
  _malloc(bytes: number): number;
  _free(at: number): void;
}

/** The reader options as the module takes them: formats joined, enumerations as their index. */
function nativeOptions(options: ReaderOptions): ZXingReaderOptions {
  const o = { ...defaultReaderOptions, ...options };
  return {
    formats: o.formats.join(','),
    tryHarder: o.tryHarder,
    tryRotate: o.tryRotate,
    tryInvert: o.tryInvert,
    tryDownscale: o.tryDownscale,
    tryDenoise: o.tryDenoise,
    binarizer: BINARIZERS.indexOf(o.binarizer),
    isPure: o.isPure,
    downscaleThreshold: o.downscaleThreshold,
    downscaleFactor: o.downscaleFactor,
    minLineCount: o.minLineCount,
    maxNumberOfSymbols: o.maxNumberOfSymbols,
    validateOptionalChecksum: o.validateOptionalChecksum,
    returnErrors: o.returnErrors,
    eanAddOnSymbol: EAN_ADD_ON_SYMBOLS.indexOf(o.eanAddOnSymbol),
    textMode: TEXT_MODES.indexOf(o.textMode),
    characterSet: CHARACTER_SETS.indexOf(o.characterSet),
    tryCode39ExtendedMode: o.tryCode39ExtendedMode,
  };
}

const NATIVE_OPTIONS: Record<ReadEffort, ZXingReaderOptions> = { fast: nativeOptions(OPTIONS.fast), hard: nativeOptions(OPTIONS.hard) };
