// `slipgate/client/image`: the slip QR of a picture, read in Node (sharp and
// ZXing). The decoder is the server's own, kept in src/slip-image so that
// neither the server nor this SDK reaches into the other for it.
export * from '../slip-image/decode-image.js';
