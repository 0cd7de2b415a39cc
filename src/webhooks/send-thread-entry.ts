import { parentPort } from 'node:worker_threads';
import { send } from './sender.js';
import type { SendRequest } from './send-thread.js';
import type { Attempt } from './types.js';

// The worker side of SendThread: runs the HTTP attempts and answers in batches, one message per turn.
const port = parentPort;
if (port === null) throw new Error('send-thread-entry runs as a worker thread');
let answers: [number, Attempt][] = [];
port.on('message', (batch: SendRequest[]) => {
  for (const r of batch) {
    void send(r.secret, r.delivery).then((attempt) => {
      if (answers.push([r.id, attempt]) === 1) {
        setImmediate(() => {
          port.postMessage(answers);
          answers = [];
        });
      }
    });
  }
});
