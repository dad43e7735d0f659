import { generateHardSlipImages } from '../test/images/hard-slip-images.js';
import { phoneScreenshot } from './bench/images.js';
import { sandboxQr } from '../src/upstream/sandbox/sandbox-qr.js';
const [url, key, which, countS] = process.argv.slice(2);
const corpus = await generateHardSlipImages();
const photo = which === 'camera' ? corpus.find((c) => c.name === 'camera-12mp-1')!.image : await phoneScreenshot(sandboxQr());
let left = Number(countS); let ok = 0;
const t0 = Date.now();
await Promise.all(Array.from({ length: 8 }, async () => {
  while (left-- > 0) {
    const r = await fetch(`${url}/api/v1/verify`, { method: 'POST', headers: { 'x-api-key': key!, 'content-type': photo[0] === 0x89 ? 'image/png' : 'image/jpeg' }, body: new Uint8Array(photo) });
    const t = await r.text(); if (t.startsWith('{"status":"success"')) ok++;
  }
}));
console.log(which, 'ok', ok, 'ms', Date.now() - t0);
