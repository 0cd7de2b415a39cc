import type { Db, Tx } from '../db/client.js';
import { notFound, type ApiError } from '../http/errors.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import { UserTally, votingClosedReason } from './rules.js';
import * as store from './store.js';
import type { Poll, PollResponse } from './types.js';

export interface VoteRequest {
  appId: string;
  pollId: string;
  choiceId: string;
  userId: string;
}

export type VoteOutcome = { ok: true; response: PollResponse } | { ok: false; error: ApiError };

interface Pending extends VoteRequest {
  done(outcome: VoteOutcome): void;
  fail(err: unknown): void;
}

const MAX_BATCH = 2000;

/**
 * Group commit for votes: the votes that arrive while a batch is being written wait and then
 * go together in one transaction. It locks the polls concerned, counts the voters' earlier
 * responses inside the transaction, checks each vote in arrival order against the poll's rules
 * and writes the accepted ones and the counters in a few statements. Each vote is answered only
 * after its batch commits. The lock makes the per-user limits and the counters exact under
 * concurrency, on one node or many.
 */
export class VoteBatcher {
  private queue: Pending[] = [];
  private running = false;
  private idle: (() => void)[] = [];

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly committed: (appId: string, pollIds: string[]) => void,
  ) {}

  submit(vote: VoteRequest): Promise<VoteOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...vote, done: resolve, fail: reject });
      this.schedule();
    });
  }

  /** Resolves once every vote submitted so far is written and answered. */
  drain(): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private schedule(): void {
    if (this.running) return;
    if (this.queue.length === 0) {
      for (const resolve of this.idle.splice(0)) resolve();
      return;
    }
    this.running = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    const batch = this.queue.splice(0, MAX_BATCH);
    try {
      const outcomes = await this.db.transaction((tx) => apply(tx, batch));
      batch.forEach((vote, i) => vote.done(outcomes[i] as VoteOutcome));
      const touched = new Map<string, Set<string>>();
      batch.forEach((vote, i) => {
        if (!outcomes[i]?.ok) return;
        const set = touched.get(vote.appId) ?? new Set<string>();
        set.add(vote.pollId);
        touched.set(vote.appId, set);
      });
      for (const [appId, pollIds] of touched) this.committed(appId, [...pollIds]);
    } catch (err) {
      this.log.error({ err, votes: batch.length }, 'vote batch failed');
      for (const vote of batch) vote.fail(err);
    } finally {
      this.running = false;
      this.schedule();
    }
  }
}

async function apply(tx: Tx, batch: Pending[]): Promise<VoteOutcome[]> {
  const pollIds = [...new Set(batch.map((v) => v.pollId))];
  const userIds = [...new Set(batch.map((v) => v.userId))];
  const polls = new Map((await store.lockPolls(tx, pollIds)).map((p) => [p.id, p]));
  const state = await store.votingState(tx, [...polls.keys()], userIds);
  const talliesByKey = new Map<string, UserTally>();
  const tallyOf = (pollId: string, userId: string) => {
    const key = `${pollId}\u0000${userId}`;
    let tally = talliesByKey.get(key);
    if (tally === undefined) {
      tally = new UserTally();
      talliesByKey.set(key, tally);
    }
    return tally;
  };
  for (const t of state.tallies) tallyOf(t.pollId, t.userId).add(t.choiceId, t.n);

  const now = new Date();
  const accepted: PollResponse[] = [];
  const byChoice = new Map<string, number>();
  const byPoll = new Map<string, number>();
  const outcomes = batch.map((vote): VoteOutcome => {
    const poll: Poll | undefined = polls.get(vote.pollId);
    if (poll === undefined || poll.appId !== vote.appId) return { ok: false, error: notFound(`Poll ${vote.pollId} not found.`) };
    if (state.choices.get(vote.choiceId) !== poll.id) return { ok: false, error: notFound(`Choice ${vote.choiceId} not found in poll ${poll.id}.`) };
    const tally = tallyOf(poll.id, vote.userId);
    const refusal = votingClosedReason(poll, now.getTime()) ?? tally.refusal(poll, vote.choiceId);
    if (refusal !== null) return { ok: false, error: refusal };
    tally.add(vote.choiceId);
    const response: PollResponse = { id: newId(), pollId: poll.id, choiceId: vote.choiceId, userId: vote.userId, added: now };
    accepted.push(response);
    byChoice.set(vote.choiceId, (byChoice.get(vote.choiceId) ?? 0) + 1);
    byPoll.set(poll.id, (byPoll.get(poll.id) ?? 0) + 1);
    return { ok: true, response };
  });
  await store.recordVotes(tx, accepted, byChoice, byPoll);
  return outcomes;
}
