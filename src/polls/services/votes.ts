import type { Db, Tx } from '../../db/client.js';
import { failsEveryWrite } from '../../db/errors.js';
import { notFound, type DomainError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Logger } from '../../logger.js';
import { lockPolls } from '../store/polls.js';
import * as store from '../store/votes.js';
import type { Poll, PollResponse, VotingState } from '../types.js';
import { commitMetrics } from '../../metrics/registry.js';
import type { PollStandings } from './poll-standings.js';
import { UserTally, votingClosedReason } from './voting-rules.js';

export interface VoteRequest {
  appId: string;
  pollId: string;
  choiceId: string;
  userId: string;
}

export type VoteOutcome = { ok: true; response: PollResponse } | { ok: false; error: DomainError };

/** What VoteBatcher uses. */
export interface VoteBatcherDeps {
  db: Db;
  log: Logger;
  /** Told the polls that took votes in a committed batch. */
  standings: Pick<PollStandings, 'changed'>;
}

interface Pending extends VoteRequest {
  done(outcome: VoteOutcome): void;
  fail(err: unknown): void;
}

const MAX_BATCH = 2000;
const metrics = commitMetrics('polls_votes');
const MAX_KNOWN_POLLS = 1000;

/**
 * Group commit for votes: the votes that arrive while a batch is being written wait and then
 * go together. A batch on one poll is decided against a snapshot and written only if the poll
 * did not change meanwhile (applyOptimistic); otherwise, and for batches on several polls, one
 * transaction locks the polls, counts the voters' earlier responses, checks each vote in arrival
 * order against the poll's rules and writes the accepted ones and the counters. Each vote is
 * answered only after its batch commits. Per-user limits and counters are exact under
 * concurrency, on one node or many.
 */
export class VoteBatcher {
  private queue: Pending[] = [];
  private running = false;
  private idle: (() => void)[] = [];
  /** Polls as last written here. */
  private readonly known = new Map<string, Known>();
  /** The next batch, taken while the last one's write was in flight, with its read when sent. */
  private prefetched: { batch: Pending[]; read: Promise<VotingState> | undefined } | undefined;

  constructor(private readonly deps: VoteBatcherDeps) {}

  submit(vote: VoteRequest): Promise<VoteOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...vote, done: resolve, fail: reject });
      this.schedule();
    });
  }

  /** Resolves once every vote submitted so far is written and answered. */
  drain(): Promise<void> {
    if (!this.running && this.queue.length === 0 && this.prefetched === undefined) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private schedule(): void {
    if (this.running) return;
    if (this.queue.length === 0 && this.prefetched === undefined) {
      for (const resolve of this.idle.splice(0)) resolve();
      return;
    }
    this.running = true;
    setImmediate(() => void this.flush());
  }

  /**
   * A batch on one poll, without a lock: read the voters' tallies with the poll's row version
   * (one snapshot), decide, and write only if the poll row is still at that version: two round
   * trips, no transaction held open. While the write travels, the next batch's read is sent
   * (prefetch). The poll's settings come from our last write when the version read is the one it
   * produced, or the one it started from (the read then ran before that write committed, and the
   * write's votes are added to the tallies); any other version is read afresh. Undefined when
   * something else committed in between: the locked path decides.
   */
  private async applyOptimistic(batch: Pending[], read: Promise<VotingState> | undefined): Promise<VoteOutcome[] | undefined> {
    const pollId = singlePoll(batch);
    if (pollId === undefined) return undefined;
    const state = await (read ?? store.votingState(this.deps.db, [pollId], votersOf(batch)));
    const seen = state.versions.get(pollId);
    if (seen === undefined) return undefined;
    let known = this.known.get(pollId);
    if (known !== undefined && known.version !== seen) {
      if (known.before?.version === seen) state.tallies.push(...tallied(known.before.accepted));
      else known = undefined;
    }
    if (known === undefined) {
      const fresh = await store.pollWithVersion(this.deps.db, pollId);
      if (fresh?.version !== seen) return undefined;
      known = { poll: fresh.poll, version: seen };
    }
    const decided = decide(batch, [known.poll], state);
    if (decided.accepted.length === 0) return decided.outcomes;
    const writing = store.recordVotesIfUnchanged(this.deps.db, pollId, known.version, decided.accepted, decided.byChoice);
    this.prefetch(pollId);
    const next = await writing;
    if (next === undefined) return undefined;
    this.remember(pollId, { poll: known.poll, version: next, before: { version: known.version, accepted: decided.accepted } });
    return decided.outcomes;
  }

  /** Takes the next batch now and, when it is on the same poll, sends its read. */
  private prefetch(pollId: string): void {
    if (this.prefetched !== undefined || this.queue.length === 0) return;
    const batch = this.queue.splice(0, MAX_BATCH);
    const read = singlePoll(batch) === pollId ? store.votingState(this.deps.db, [pollId], votersOf(batch)) : undefined;
    // Awaited later, after the write: a failure must not count as unhandled meanwhile.
    read?.catch(() => undefined);
    this.prefetched = { batch, read };
  }

  private remember(pollId: string, known: Known): void {
    if (this.known.size >= MAX_KNOWN_POLLS) this.known.clear();
    this.known.set(pollId, known);
  }

  private answer(batch: Pending[], outcomes: VoteOutcome[]): void {
    const touched = new Set<string>();
    batch.forEach((vote, i) => {
      if ((outcomes[i] as VoteOutcome).ok) touched.add(vote.pollId);
    });
    // Before any voter hears back: a standings read that follows a vote's answer shows it.
    if (touched.size > 0) this.deps.standings.changed(touched);
    batch.forEach((vote, i) => vote.done(outcomes[i] as VoteOutcome));
  }

  private async flush(): Promise<void> {
    const { batch, read } = this.prefetched ?? { batch: this.queue.splice(0, MAX_BATCH), read: undefined };
    this.prefetched = undefined;
    try {
      const started = performance.now();
      const outcomes = (await this.applyOptimistic(batch, read)) ?? (await this.deps.db.transaction((tx) => applyLocked(tx, batch)));
      metrics.observe(batch.length, started);
      this.answer(batch, outcomes);
    } catch (err) {
      if (batch.length === 1 || failsEveryWrite(err)) {
        this.deps.log.error({ err, votes: batch.length }, 'vote batch failed');
        for (const vote of batch) vote.fail(err);
      } else {
        // Only a vote that fails on its own fails its request.
        this.deps.log.warn({ err, votes: batch.length }, 'vote batch failed; writing its votes one by one');
        for (const vote of batch) await this.deps.db.transaction((tx) => applyLocked(tx, [vote])).then((outcomes) => this.answer([vote], outcomes), vote.fail);
      }
    } finally {
      this.running = false;
      this.schedule();
    }
  }
}

/** A poll as this node last wrote it: its settings, row version, and the write that led there. */
interface Known {
  poll: Poll;
  version: string;
  before?: { version: string; accepted: PollResponse[] };
}

const singlePoll = (batch: Pending[]): string | undefined => {
  const pollId = (batch[0] as Pending).pollId;
  return batch.every((v) => v.pollId === pollId) ? pollId : undefined;
};

/** Responses as tallies of one each. */
const tallied = (responses: PollResponse[]) => responses.map((r) => ({ pollId: r.pollId, userId: r.userId, choiceId: r.choiceId, n: 1 }));

interface Decided {
  outcomes: VoteOutcome[];
  accepted: PollResponse[];
  byChoice: Map<string, number>;
  byPoll: Map<string, number>;
}

/** Any batch: lock the polls, decide, write, in one transaction. */
async function applyLocked(tx: Tx, batch: Pending[]): Promise<VoteOutcome[]> {
  const locked = await lockPolls(tx, [...new Set(batch.map((v) => v.pollId))]);
  const decided = decide(
    batch,
    locked,
    await store.votingState(
      tx,
      locked.map((p) => p.id),
      votersOf(batch),
    ),
  );
  await store.recordVotes(tx, decided.accepted, decided.byChoice, decided.byPoll);
  return decided.outcomes;
}

const votersOf = (batch: Pending[]) => [...new Set(batch.map((v) => v.userId))];

/** Checks each vote, in arrival order, against its poll's rules and the voter's responses so far. */
function decide(batch: Pending[], found: Poll[], state: VotingState): Decided {
  const polls = new Map(found.map((p) => [p.id, p]));
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
  return { outcomes, accepted, byChoice, byPoll };
}
