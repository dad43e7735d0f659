// `slipgate/client/pixels`: the QR in raw RGBA pixels (jsQR only, no Node
// APIs), for a browser's canvas. Shared with the server in src/slip-image.
export * from '../slip-image/qr-from-pixels.js';
