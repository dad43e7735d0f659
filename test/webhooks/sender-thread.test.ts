// The server's webhook sender runs the HTTP sender in one thread of its own,
// at the lowest priority: it answers exactly like the direct sender, its
// thread runs at nice 19, and a thread that dies fails only the posts it had
// (statusCode null: the worker retries them) while the next post starts a new one.
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER, verifyWebhookSignature } from '../../src/client/webhooks.js';
import type { WebhookPost } from '../../src/domain/ports/webhook-sender.js';
import { httpWebhookSender, NO_ANSWER } from '../../src/webhooks/http-sender.js';
import { ThreadWebhookSender } from '../../src/webhooks/sender-thread.js';
import { startReceiver, type Answer, type Receiver } from '../helpers/webhook-receiver.js';

const receivers: Receiver[] = [];
const senders: ThreadWebhookSender[] = [];
afterEach(async () => {
  for (const s of senders.splice(0)) await s.close();
  for (const r of receivers.splice(0)) await r.close();
});

async function receiver(answer: () => Answer): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

function threaded(): ThreadWebhookSender {
  const sender = new ThreadWebhookSender({ userAgent: 'test', guard: { adminPort: null, allowPrivate: true } });
  senders.push(sender);
  return sender;
}

const request = (url: string, timeoutMs = 5_000): WebhookPost => ({ url, body: '{"n":1}', headers: { 'x-test': 'yes' }, timeoutMs });

/** Thread ids of this process whose nice value (field 19 of /proc/self/task/<tid>/stat) is `nice`. */
function threadsAtNice(nice: number): string[] {
  return readdirSync('/proc/self/task').filter((tid) => {
    try {
      // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(fields[19 - 3]) === nice;
    } catch {
      return false; // the thread ended while listed
    }
  });
}

describe('threaded webhook sender', () => {
  it('signs a post on the thread as the SDK verifies it: over the exact body, at the time given', async () => {
    const ok = await receiver(() => ({ status: 204 }));
    const at = new Date();
    expect(await threaded().post({ ...request(ok.url), signature: { secret: 'whsec_thread_test', at } })).toEqual({ statusCode: 204, retryAfter: undefined });
    const [got] = ok.received;
    const header = got!.headers[SIGNATURE_HEADER] as string;
    expect(header).toMatch(new RegExp(`^t=${Math.floor(at.getTime() / 1000)},v1=[0-9a-f]{64}$`));
    expect(verifyWebhookSignature(got!.body, header, 'whsec_thread_test')).toMatchObject({ ok: true });
    expect(verifyWebhookSignature('{"n":2}', header, 'whsec_thread_test')).toMatchObject({ ok: false });
    expect(verifyWebhookSignature(got!.body, header, 'whsec_another')).toMatchObject({ ok: false });
  });

  it('answers like the direct sender: 200, 503 with Retry-After, a timeout', async () => {
    const ok = await receiver(() => ({ status: 200, body: '{"ok":true}' }));
    const busy = await receiver(() => ({ status: 503, headers: { 'retry-after': '120' } }));
    const silent = await receiver(() => 'hang');
    const direct = httpWebhookSender('test', { adminPort: null, allowPrivate: true });
    const sender = threaded();
    for (const [url, timeoutMs] of [[ok.url, 5_000], [busy.url, 5_000], [silent.url, 300]] as const) {
      expect(await sender.post(request(url, timeoutMs))).toEqual(await direct.post(request(url, timeoutMs)));
    }
    expect(await sender.post(request(busy.url))).toEqual({ statusCode: 503, retryAfter: '120' });
    expect(await sender.post(request(silent.url, 300))).toEqual({ statusCode: null, error: NO_ANSWER, detail: 'timed out: no answer within the delivery timeout' });
    // The request as sent by the thread: body, the caller's headers and the user agent.
    expect(ok.received.at(-1)).toMatchObject({ body: '{"n":1}', headers: { 'x-test': 'yes', 'user-agent': 'test' } });
  });

  it('starts its thread on the first post, at nice 19', async () => {
    const ok = await receiver(() => ({ status: 204 }));
    const sender = threaded();
    const before = threadsAtNice(19);
    expect(sender.thread).toBeNull();
    expect(await sender.post(request(ok.url))).toEqual({ statusCode: 204, retryAfter: undefined });
    const lowered = threadsAtNice(19).filter((tid) => !before.includes(tid));
    expect(lowered).toHaveLength(1);
    // The caller's thread keeps its priority.
    expect(threadsAtNice(19)).not.toContain(String(process.pid));
  });

  it('fails the posts of a thread that stops, and the next post starts a new thread', async () => {
    const silent = await receiver(() => 'hang');
    const ok = await receiver(() => ({ status: 204 }));
    const sender = threaded();
    const pending = [sender.post(request(silent.url, 60_000)), sender.post(request(silent.url, 60_000))];
    const first = sender.thread!;
    // Both requests reached the endpoint: the thread is mid-delivery when it dies.
    await expect.poll(() => silent.received.length).toBe(2);
    await first.terminate();
    for (const answer of await Promise.all(pending)) {
      expect(answer).toEqual({ statusCode: null, error: expect.stringMatching(/^webhook sender thread stopped: /) });
    }
    expect(await sender.post(request(ok.url))).toEqual({ statusCode: 204, retryAfter: undefined });
    expect(sender.thread).not.toBeNull();
    expect(sender.thread!.threadId).not.toBe(first.threadId);
  });

  it('answers every post of one tick (they cross to the thread as one message), each by its own answer', async () => {
    let n = 0;
    const ok = await receiver(() => ({ status: 200 + (n++ % 2) }));
    const sender = threaded();
    const answers = await Promise.all(Array.from({ length: 64 }, () => sender.post(request(ok.url))));
    expect(ok.received).toHaveLength(64);
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(32);
    expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(32);
  });

  it('sends the posts made after a thread failed, in the same tick, to the new thread', async () => {
    const ok = await receiver(() => ({ status: 204 }));
    const sender = threaded();
    const lost = sender.post(request(ok.url));
    const first = sender.thread!;
    // What a crashing thread reports, before its batch was even sent to it.
    first.emit('error', new Error('crashed'));
    const next = sender.post(request(ok.url));
    expect(await lost).toEqual({ statusCode: null, error: 'webhook sender thread stopped: crashed' });
    expect(await next).toEqual({ statusCode: 204, retryAfter: undefined });
    expect(sender.thread!.threadId).not.toBe(first.threadId);
    await first.terminate();
  });

  it('after close, ends its thread and sends nothing more', async () => {
    const ok = await receiver(() => ({ status: 204 }));
    const sender = threaded();
    await sender.post(request(ok.url));
    await sender.close();
    expect(sender.thread).toBeNull();
    expect(await sender.post(request(ok.url))).toEqual({ statusCode: null, error: 'webhook sender closed' });
    expect(ok.received).toHaveLength(1);
  });
});
