import type { Options, Scenario } from './options.js';

/** What the fans of a scenario do during the run. */
export interface Plan {
  /** Fans join during the run, spread over this share of it (0: they all join before it starts). */
  joinShare: number;
  /** Chat posts a second, round-robin over the speakers. */
  postRate: number;
  /** Fans who post: the first `speakers` fans, joined before the run. */
  speakers: number;
  /** Every fan likes the hot chat event once. */
  likes: boolean;
  /** Every fan up-votes the hot comment once, and answers the poll once. */
  votes: boolean;
  /** Each fan polls `updates` this often (seconds; 0: never). */
  pollEverySeconds: number;
  /** How the load stays inside the per-user budgets, said in the output. */
  spreading: string;
}

const SHAPES: Record<Scenario, Omit<Plan, 'speakers' | 'spreading'>> = {
  // Tens of thousands arrive in the room; a commentator keeps the room alive.
  kickoff: { joinShare: 1, postRate: 1, likes: false, votes: false, pollEverySeconds: 0 },
  // Everyone likes the goal.
  goal: { joinShare: 0, postRate: 0, likes: true, votes: false, pollEverySeconds: 0 },
  chat: { joinShare: 0, postRate: 20, likes: false, votes: false, pollEverySeconds: 0 },
  // Fans follow the room by polling while a few speak.
  watch: { joinShare: 0, postRate: 2, likes: false, votes: false, pollEverySeconds: 2 },
  mixed: { joinShare: 0.5, postRate: 5, likes: true, votes: true, pollEverySeconds: 10 },
};

/**
 * The scenario's plan, with its chat posts spread over enough users that none uses more than half
 * of its chat budget per room (a like draws on that budget too); votes are one per fan per target.
 */
export function planFor(options: Options): Plan {
  const shape = SHAPES[options.scenario];
  const chat = options.limits.writes.chat;
  const perUser = chat.points / chat.seconds / 2 - (shape.likes ? 1 / options.durationSeconds : 0);
  const wanted = options.rate ?? shape.postRate;
  // Fans not joined before the run cannot speak from its start; the rest join during it.
  const available = shape.joinShare > 0 ? Math.max(1, Math.floor(options.fans / 2)) : options.fans;
  const postRate = Math.min(wanted, available * perUser);
  // Posts go round-robin over every fan in the room from the start; where most join during the run, over as few as the budget allows.
  const speakers = postRate === 0 ? 0 : shape.joinShare > 0 ? Math.min(available, Math.ceil(postRate / perUser)) : options.fans;
  const capped = postRate < wanted ? ` (capped from ${wanted}/s: ${available} fans can speak)` : '';
  const votes = options.limits.writes.votes;
  const posts =
    postRate === 0
      ? 'no chat posts'
      : `chat posts ${round(postRate)}/s round-robin over ${speakers} users, ${round(postRate / speakers)}/s each${capped}; the chat budget is ${chat.points}/${chat.seconds}s per user per room, the tester keeps each user under half of it`;
  const spreading = [posts, shape.likes ? 'one like per fan' : '', shape.votes ? `one comment vote and one poll vote per fan (budget ${votes.points}/${votes.seconds}s)` : '', 'joins: once per fan']
    .filter((s) => s !== '')
    .join('; ');
  return { ...shape, postRate, speakers, spreading };
}

const round = (n: number) => Math.round(n * 100) / 100;
