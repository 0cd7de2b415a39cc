import type { Area, Core } from '../core.js';
import { choiceRoutes } from './routes/choices.js';
import { leadRoutes } from './routes/leads.js';
import { pollRoutes } from './routes/polls.js';
import { responseRoutes } from './routes/responses.js';
import { PollReads } from './services/poll-reads.js';
import { PollService } from './services/polls.js';
import { ResponseService } from './services/responses.js';
import { PollStandings } from './services/poll-standings.js';
import { StandingsPush } from './services/standings.js';
import { VoteBatcher } from './services/votes.js';
import { STANDINGS_SHAPE } from './views.js';

/** Polls, their choices, votes, responses and leads: REST routes and the `poll:` topic of live standings. */
export function pollsArea(core: Core): Area {
  const { db, log } = core;
  const push = new StandingsPush({ db, bus: core.bus, log });
  const reads = new PollReads(db, log);
  const standings = new PollStandings({ reads, push, onlyWriter: core.bus.kind === 'memory', maxBytes: core.config.crowdReadsCacheBytes });
  core.shapes.register('poll.standings', STANDINGS_SHAPE);
  core.topics.register('poll', { carries: { kind: 'poll.standings' }, doc: { events: ['poll.standings'], who: 'anyone with the app token; data is the standings REST object' } });
  const polls = new PollService({ db, bus: core.bus, reads, standings });
  const responses = new ResponseService({ db, polls });
  const votes = new VoteBatcher({ db, log, standings });
  return {
    async close() {
      await votes.drain();
      push.close();
    },
    routes: [...pollRoutes(polls), ...choiceRoutes(polls), ...responseRoutes(standings, responses, votes), ...leadRoutes(responses)],
  };
}
