import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import { notFound } from '../../errors.js';
import { LocalVersions } from '../../local-versions.js';
import { SharedAnswers } from '../../shared-answers.js';
import * as store from '../store/polls.js';
import { standingsView } from '../views.js';
import type { StandingsPush } from './standings.js';

/** What PollStandings uses. */
export interface PollStandingsDeps {
  db: Db;
  push: Pick<StandingsPush, 'changed'>;
  /** This node is the only writer (the memory bus): see LocalVersions. */
  onlyWriter: boolean;
  /** Bytes of standings held at most (CROWD_READS_CACHE). */
  maxBytes: number;
}

/** Polls whose changes are counted at most (LocalVersions). */
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
  private readonly versions: LocalVersions;

  constructor(private readonly deps: PollStandingsDeps) {
    this.answers = new SharedAnswers({ name: 'poll_standings', maxBytes: deps.maxBytes, sizeOf: (answer) => answer.length });
    this.versions = new LocalVersions(deps.onlyWriter, REMEMBERED_POLLS);
  }

  changed(pollIds: Iterable<string>): void {
    const ids = [...pollIds];
    for (const id of ids) this.versions.changed(id);
    this.deps.push.changed(ids);
  }

  /** The standings REST object of the app's poll, for a request that began at `began` (performance.now()). */
  answer(app: Application, pollId: string, began: number): Promise<Buffer> {
    return this.answers.take(`${app.id}/${pollId}`, this.versions.freshness(pollId, began), async () => {
      const poll = await store.findPoll(this.deps.db, app.id, pollId);
      if (poll === undefined) throw notFound(`Poll ${pollId} not found.`);
      return Buffer.from(JSON.stringify(standingsView(poll, await store.choicesOf(this.deps.db, [pollId]))));
    });
  }
}
