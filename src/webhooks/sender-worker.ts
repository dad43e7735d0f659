// The webhook sending thread: runs the HTTP sender (http-sender.ts) for the
// requests the main thread posts it, so a delivery's HTTP work (the client,
// TCP and TLS, parsing the answer) runs beside the verify path's event loop
// instead of on it.
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { WebhookAnswer, WebhookPost } from '../domain/ports/webhook-sender.js';
import { httpWebhookSender } from './http-sender.js';
import type { TargetGuard } from './self-guard.js';

export interface SenderThreadData {
  userAgent: string;
  guard: TargetGuard;
}
export interface SenderRequest {
  id: number;
  request: WebhookPost;
}
export interface SenderReply {
  id: number;
  answer: WebhookAnswer;
}

/**
 * On Linux the nice value belongs to a thread: the lowest priority, so
 * deliveries only ever use CPU the verify path leaves. Webhooks are
 * asynchronous (under full load they wait and catch up later); a merchant
 * waiting at the counter is not. Lowering one's own priority needs no
 * privilege; elsewhere setPriority would lower the whole process, so it is
 * left alone (as in images/decode-worker.ts).
 */
const SENDER_NICE = 19;
if (process.platform === 'linux') setPriority(SENDER_NICE);

const port = parentPort;
if (!port) throw new Error('sender-worker must run as a worker thread');
const { userAgent, guard } = workerData as SenderThreadData;
const sender = httpWebhookSender(userAgent, guard);

// Answers that arrive in one turn of this thread's loop go back in one
// message: one wake-up of the main thread for all of them.
let replies: SenderReply[] = [];
const reply = (answer: SenderReply) => {
  if (replies.length === 0) {
    setImmediate(() => {
      port.postMessage(replies);
      replies = [];
    });
  }
  replies.push(answer);
};

port.on('message', (batch: SenderRequest[]) => {
  // post() never rejects: every request gets its reply.
  for (const { id, request } of batch) void sender.post(request).then((answer) => reply({ id, answer }));
});
