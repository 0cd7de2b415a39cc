import type { Api } from './http.js';
import type { Acked } from './run.js';
import type { Stage } from './stage.js';

/** One read-back check: what the server returned against what it acknowledged. */
export interface Check {
  what: string;
  node: number;
  acknowledged: number;
  found: number;
  /** Acknowledged but missing. */
  lost: number;
  /** More than was ever tried: counted twice. */
  overcounted: number;
}

interface Page {
  cursor: string;
  more: boolean;
}

async function allPages<T>(api: Api, path: string, items: (page: T & Page) => unknown[]): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor = '';
  for (;;) {
    const page = await api.must<T & Page>(0, 'GET', `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`);
    out.push(...items(page));
    if (!page.more || page.cursor === '' || page.cursor === cursor) return out;
    cursor = page.cursor;
  }
}

/** Against a set the server listed, `found` counts the acknowledged ids in it; against a count, it is the count. */
function check(what: string, node: number, acknowledged: Set<string> | number, found: Set<string> | number, tried: number): Check {
  const lost = typeof acknowledged === 'number' || typeof found === 'number' ? Math.max(0, size(acknowledged) - size(found)) : [...acknowledged].filter((id) => !found.has(id)).length;
  const foundAcknowledged = typeof found === 'number' ? found : size(acknowledged) - lost;
  return { what, node, acknowledged: size(acknowledged), found: foundAcknowledged, lost, overcounted: Math.max(0, size(found) - tried) };
}
const size = (x: Set<string> | number) => (typeof x === 'number' ? x : x.size);

/**
 * Reads back what the run wrote: the room's participants and its event history (every acknowledged
 * join, post and like present), and on every node the room's `inroom`, the hot event's like count,
 * the hot comment's up-votes and the poll's total, against the acknowledged writes.
 */
export async function readBack(api: Api, stage: Stage, acked: Acked): Promise<Check[]> {
  const { roomid } = stage;
  const participants = await allPages<{ participants: { user: { userid: string } }[] }>(api, `chat/rooms/${roomid}/participants?limit=200`, (p) => p.participants.map((x) => x.user.userid));
  const joinTried = acked.tried('setup join') + acked.tried('join');
  const checks = [check('joins listed in participants', 0, acked.joins, new Set(participants as string[]), joinTried)];
  const history = await allPages<{ events: { id: string }[] }>(api, `chat/rooms/${roomid}/listeventshistory?limit=2000`, (p) => p.events.map((e) => e.id));
  checks.push(check('posts and likes in the room history', 0, new Set(acked.roomEvents.keys()), new Set(history as string[]), Number.POSITIVE_INFINITY));
  for (let node = 0; node < api.nodes; node++) {
    const room = await api.must<{ inroom: number }>(node, 'GET', `chat/rooms/${roomid}`);
    checks.push(check("room's inroom", node, acked.joins.size, room.inroom, joinTried));
    if (acked.tried('like') > 0) {
      const event = await api.must<{ reactions: { type: string; count: number }[] }>(node, 'GET', `chat/rooms/${roomid}/events/${stage.hotEventId}`);
      checks.push(check("hot event's like count", node, acked.likes.size, event.reactions.find((r) => r.type === 'like')?.count ?? 0, acked.tried('like')));
    }
    if (acked.tried('comment vote') > 0) {
      const comment = await api.must<{ votes: { type: string; count: number }[] }>(node, 'GET', `comment/conversations/${stage.conversationid}/comments/${stage.commentid}`);
      checks.push(check("hot comment's up-votes", node, acked.commentVotes.size, comment.votes.find((v) => v.type === 'up')?.count ?? 0, acked.tried('comment vote')));
    }
    if (acked.tried('poll vote') > 0) {
      const standings = await api.must<{ totalresponses: number }>(node, 'GET', `poll/poll/${stage.pollid}/standings`);
      checks.push(check("poll's total responses", node, acked.pollVotes.size, standings.totalresponses, acked.tried('poll vote')));
    }
  }
  return checks;
}
