import type { Application } from '../../apps/types.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Db, Tx } from '../../db/client.js';
import { conflict, notFound } from '../../errors.js';
import { type Page, pageOf, stringCursor } from '../../http/cursor.js';
import { newId } from '../../ids.js';
import type { Bus } from '../../realtime/bus.js';
import { endLive } from '../../realtime/live.js';
import type { ChoiceInput, PageRequest, PollInput } from '../schemas.js';
import * as store from '../store/polls.js';
import { clearResponses, deleteResponses } from '../store/responses.js';
import type { Choice, NewChoice, NewPoll, Poll, PollWithChoices } from '../types.js';
import type { PollReads } from './poll-reads.js';
import type { PollStandings } from './poll-standings.js';

type CustomInput = Pick<ChoiceInput, 'customid' | 'customtype' | 'custompayload' | 'customfield1' | 'customfield2' | 'customtags'>;

/** The custom fields polls and choices share; an empty customid means none. */
const customColumns = (input: CustomInput) => ({
  customId: input.customid === '' ? null : input.customid,
  customType: input.customtype,
  customPayload: input.custompayload,
  customField1: input.customfield1,
  customField2: input.customfield2,
  customTags: input.customtags,
});

/** Request fields to columns; only the fields present are set. */
function pollColumns(input: PollInput): Partial<NewPoll> {
  const columns: Partial<NewPoll> = {
    ownerId: input.ownerid,
    title: input.title,
    subtitle: input.subtitle,
    description: input.description,
    pictureUrl: input.pictureurl,
    ...customColumns(input),
    allowMultipleChoicesPerUser: input.allowmultiplechoicesperuser,
    maxTotalResponsesPerUser: input.maxtotalresponsesperuser,
    maxResponsesPerChoicePerUser: input.maxresponsesperchoiceperuser,
    whenPollOpens: input.whenpollopens,
    whenPollCloses: input.whenpollcloses,
    whenPollExpires: input.whenpollexpires,
    status: input.status,
    displayResults: input.displayresults,
    sortChoices: input.sortchoices ?? input.sortanswers,
  };
  return Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined));
}

const customIdTaken = (customId: string | null | undefined) => conflict(`The customid ${customId ?? ''} is already used by another poll.`, { customid: 'is already in use' });

/** What PollService uses. */
export interface PollServiceDeps {
  db: Db;
  bus: Bus;
  reads: PollReads;
  /** Told the polls whose standings a change other than a vote moved (a reset, a choice added or deleted, the poll deleted). */
  standings: Pick<PollStandings, 'changed'>;
}

/** The app's poll, or 404. */
export async function requirePoll(db: Db, app: Application, pollId: string): Promise<Poll> {
  const poll = await store.findPoll(db, app.id, pollId);
  if (poll === undefined) throw notFound(`Poll ${pollId} not found.`);
  return poll;
}

/** Polls and their choices; votes go through VoteBatcher. Every write locks the poll's row first, as vote batches do. */
export class PollService {
  constructor(private readonly deps: PollServiceDeps) {}

  async create(app: Application, input: PollInput & { title: string }): Promise<Poll> {
    try {
      return await store.insertPoll(this.deps.db, { id: newId(), appId: app.id, ...pollColumns(input), title: input.title });
    } catch (err) {
      if (isUniqueViolation(err)) throw customIdTaken(input.customid);
      throw err;
    }
  }

  async update(app: Application, pollId: string, input: PollInput): Promise<Poll> {
    try {
      const poll = await store.updatePoll(this.deps.db, app.id, pollId, pollColumns(input));
      if (poll === undefined) throw notFound(`Poll ${pollId} not found.`);
      return poll;
    } catch (err) {
      if (isUniqueViolation(err)) throw customIdTaken(input.customid);
      throw err;
    }
  }

  require(app: Application, pollId: string): Promise<Poll> {
    return requirePoll(this.deps.db, app, pollId);
  }

  requireWithChoices(app: Application, pollId: string): Promise<PollWithChoices> {
    return this.deps.reads.requireWithChoices(app, pollId);
  }

  async requireByCustomId(app: Application, customId: string): Promise<Poll> {
    const poll = await store.findPollByCustomId(this.deps.db, app.id, customId);
    if (poll === undefined) throw notFound(`No poll has customid ${customId}.`);
    return poll;
  }

  /** Newest first, each with its choices; unpublished polls only when asked for. */
  async list(app: Application, includeUnpublished: boolean, page: PageRequest): Promise<Page<PollWithChoices>> {
    const rows = await store.listPolls(this.deps.db, app.id, includeUnpublished, stringCursor(page.cursor), page.limit + 1);
    const { items, next } = pageOf(rows, page.limit, (p) => p.id);
    const choices = await store.choicesByPoll(
      this.deps.db,
      items.map((p) => p.id),
    );
    return { items: items.map((poll) => ({ poll, choices: choices.get(poll.id) ?? [] })), next };
  }

  /** The poll's choices in position order, the first `limit` when given. */
  choicesOf(poll: Poll, limit?: number): Promise<Choice[]> {
    return store.choicesOf(this.deps.db, [poll.id], limit);
  }

  async delete(app: Application, pollId: string): Promise<{ poll: Poll; choices: Choice[] }> {
    const deleted = await this.deps.db.transaction(async (tx) => {
      await this.lockOwn(tx, app, pollId);
      const choices = await store.choicesOf(tx, [pollId]);
      await deleteResponses(tx, pollId);
      const poll = (await store.deletePoll(tx, app.id, pollId)) as Poll;
      return { poll, choices };
    });
    this.deps.standings.changed([pollId]);
    endLive(this.deps.bus, app.id, 'poll', pollId, 'deleted');
    return deleted;
  }

  /** Removes every response; returns how many. */
  async reset(app: Application, pollId: string): Promise<{ poll: Poll; removed: number }> {
    const reset = await this.deps.db.transaction(async (tx) => {
      await this.lockOwn(tx, app, pollId);
      return clearResponses(tx, pollId);
    });
    this.deps.standings.changed([reset.poll.id]);
    return reset;
  }

  /** Adds choices after the last position unless a position (not negative) is given; returns all the poll's choices in position order. */
  async addChoices(app: Application, pollId: string, inputs: ChoiceInput[]): Promise<Choice[]> {
    const choices = await this.deps.db.transaction(async (tx) => {
      await this.lockOwn(tx, app, pollId);
      let next = await store.nextPosition(tx, pollId);
      const rows: NewChoice[] = inputs.map((c) => {
        const position = c.position === undefined || c.position < 0 ? next : c.position;
        next = Math.max(next, position + 1);
        return {
          id: newId(),
          pollId,
          position,
          title: c.title,
          subtitle: c.subtitle,
          imageUrl: c.imageurl,
          videoId: c.videoid,
          embedCode: c.embedcode,
          ...customColumns(c),
        };
      });
      await store.insertChoices(tx, rows);
      return store.choicesOf(tx, [pollId]);
    });
    this.deps.standings.changed([pollId]);
    return choices;
  }

  /** Deletes the choice with its responses and takes them off the poll's total. */
  async deleteChoice(app: Application, pollId: string, choiceId: string): Promise<Choice> {
    const choice = await this.deps.db.transaction(async (tx) => {
      await this.lockOwn(tx, app, pollId);
      const deleted = await store.deleteChoice(tx, pollId, choiceId);
      if (deleted === undefined) throw notFound(`Choice ${choiceId} not found in poll ${pollId}.`);
      await deleteResponses(tx, pollId, choiceId);
      await store.addToTotal(tx, pollId, -deleted.responseCount);
      return deleted;
    });
    this.deps.standings.changed([choice.pollId]);
    return choice;
  }

  private async lockOwn(tx: Tx, app: Application, pollId: string): Promise<void> {
    const [poll] = await store.lockPolls(tx, [pollId]);
    if (poll === undefined || poll.appId !== app.id) throw notFound(`Poll ${pollId} not found.`);
  }
}
