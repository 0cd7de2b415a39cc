import type { Application } from '../../apps/types.js';
import { ChangeClock } from '../../change-clock.js';
import { atVersionOrSince, SharedAnswers, withItsAnswer } from '../../shared-answers.js';
import { standingsView } from '../views.js';
import type { PollReads } from './poll-reads.js';
import type { StandingsPush } from './standings.js';

/** What PollStandings uses. */
export interface PollStandingsDeps {
  reads: Pick<PollReads, 'requireStandings'>;
  push: Pick<StandingsPush, 'changed'>;
  /**
   * This node is the only writer (one node on the memory bus): every change is made, and counted,
   * here before its request is answered, so the counts say when an answer is stale. On a cluster a
   * change made on another node is not counted here.
   */
  onlyWriter: boolean;
  /** Bytes of standings held at most (CROWD_READS_CACHE). */
  maxBytes: number;
}

/** Polls whose last change is remembered at most (ChangeClock). */
const REMEMBERED_POLLS = 100_000;

/**
 * A poll's standings, which a crowd reads over and over while it votes, as the JSON to send: read
 * once per change of the poll's counts or choices on a node that is the only writer, and on a
 * cluster once for every request that began before the read started. Every change (a committed
 * batch of votes, a reset, a choice added or deleted, the poll deleted) is told here before its
 * request is answered, and passed on to the live push.
 */
export class PollStandings {
  private readonly answers: SharedAnswers<Buffer>;
  private readonly changes = new ChangeClock(REMEMBERED_POLLS);

  constructor(private readonly deps: PollStandingsDeps) {
    this.answers = new SharedAnswers({ name: 'poll_standings', maxBytes: deps.maxBytes, sizeOf: (answer) => withItsAnswer(answer.length) });
  }

  changed(pollIds: Iterable<string>): void {
    const ids = [...pollIds];
    for (const id of ids) this.changes.changed(id);
    this.deps.push.changed(ids);
  }

  /** The standings REST object of the app's poll, for a request that began at `began` (performance.now()). */
  answer(app: Application, pollId: string, began: number): Promise<Buffer> {
    const version = this.deps.onlyWriter ? String(this.changes.versionOf(pollId)) : undefined;
    return this.answers.take(`${app.id}/${pollId}`, atVersionOrSince(version, began), async () => {
      return Buffer.from(JSON.stringify(standingsView(await this.deps.reads.requireStandings(app, pollId))));
    });
  }
}
