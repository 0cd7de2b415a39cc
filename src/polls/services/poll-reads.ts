import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import { ReadBatcher } from '../../db/read-batcher.js';
import { notFound } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { findPollsWithChoices, findStandings } from '../store/polls.js';
import type { PollStandingsRead, PollWithChoices } from '../types.js';

/** Polls with their choices, or their standings, by id, each read with the others asked for at the same moment (readers opening many articles' polls). */
export class PollReads {
  private readonly withChoices: ReadBatcher<string, PollWithChoices>;
  private readonly standings: ReadBatcher<string, PollStandingsRead>;

  constructor(db: Db, log: Logger) {
    this.withChoices = new ReadBatcher({ read: (ids) => findPollsWithChoices(db, ids), keyOf: (id) => id, keyOfValue: (found) => found.poll.id, log, name: 'polls_with_choices' });
    this.standings = new ReadBatcher({ read: (ids) => findStandings(db, ids), keyOf: (id) => id, keyOfValue: (found) => found.pollId, log, name: 'poll_standings_by_id' });
  }

  /** The app's poll with its choices in position order, read after the request began; 404 when there is none. */
  async requireWithChoices(app: Application, pollId: string): Promise<PollWithChoices> {
    const found = await this.withChoices.get(pollId);
    if (found?.poll.appId !== app.id) throw notFound(`Poll ${pollId} not found.`);
    return found;
  }

  /** The standings of the app's poll, read after the request began; 404 when there is none. */
  async requireStandings(app: Application, pollId: string): Promise<PollStandingsRead> {
    const found = await this.standings.get(pollId);
    if (found?.appId !== app.id) throw notFound(`Poll ${pollId} not found.`);
    return found;
  }
}
