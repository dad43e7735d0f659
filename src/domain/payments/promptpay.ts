// The dynamic PromptPay QR of a payment request: EMVCo tag 29 (the
// receiver's PromptPay target), tag 54 (the amount) and the CRC-16 (tag 63),
// made by promptparse.
import { generate } from 'promptparse';
import type { Receiver } from '../types.js';
import { bahtOf } from './money.js';

export function promptPayPayload(receiver: Receiver, satang: number): string {
  if (receiver.kind !== 'promptpay' || receiver.proxyType === null) throw new Error(`receiver ${receiver.id} is not a PromptPay target`);
  return generate.anyId({ type: receiver.proxyType, target: receiver.number, amount: bahtOf(satang) });
}
