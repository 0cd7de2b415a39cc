import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { budget, send } from './sender.js';
import type { SendRequest } from './send-thread.js';
import type { Attempt } from './types.js';

// The worker side of SendThread: runs the HTTP attempts and answers in batches, one message per turn.
const port = parentPort;
if (port === null) throw new Error('send-thread-entry runs as a worker thread');
lowerPriority();
let answers: [number, Attempt][] = [];
port.on('message', (batch: SendRequest[]) => {
  const deadline = budget();
  for (const r of batch) {
    void send(r.secret, r.delivery, deadline).then((attempt) => {
      if (answers.push([r.id, attempt]) === 1) {
        setImmediate(() => {
          port.postMessage(answers);
          answers = [];
        });
      }
    });
  }
});

/**
 * When the CPUs are busy, serving requests goes first and deliveries take the time left:
 * on Linux a thread has its own nice value, set through its thread id.
 */
function lowerPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    setPriority(tid, 10);
  } catch {
    // Not Linux, or not allowed: the thread keeps the process's priority.
  }
}
