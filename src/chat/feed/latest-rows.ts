import type { Db } from '../../db/client.js';
import { ReadBatcher, readByScope } from '../../db/read-batcher.js';
import { groupBy } from '../../group-by.js';
import type { Logger } from '../../logger.js';
import { latestDisplayable, shadowedBetween } from '../store/events.js';
import type { ChatEvent } from '../types.js';

/** A room's newest displayable events up to its head, as a page of `limit` shows them. */
export interface LatestWanted {
  roomId: string;
  head: number;
  limit: number;
}

/** The rows of a latest page. */
export interface LatestRowsRead {
  /** The page's events, oldest first; one more than `limit` (the oldest) when there are more. */
  rows: ChatEvent[];
  /** Shadow-banned events in the page's span, oldest first, at most `shadowedHeld` + 1. */
  shadowed: ChatEvent[];
}

interface Read extends LatestRowsRead {
  key: string;
}

const keyOf = (w: LatestWanted) => `${w.roomId}\u0000${w.head}\u0000${w.limit}`;

/**
 * The rows of rooms' latest pages, each read with those of the other rooms asked for at the same
 * moment (readers opening many rooms): a statement for the pages of the batch, one for the
 * shadow-banned events within their spans.
 */
export class LatestRows {
  private readonly pages: ReadBatcher<LatestWanted, Read>;

  constructor(db: Db, log: Logger, shadowedHeld: number) {
    const read = async (wanted: LatestWanted[], limit: number): Promise<Read[]> => {
      const rowsOf = groupBy(
        await latestDisplayable(
          db,
          wanted.map((w) => ({ roomId: w.roomId, beforeSeq: w.head + 1 })),
          limit + 1,
        ),
        (r) => r.roomId,
      );
      const spans = wanted.map((w) => {
        const rows = rowsOf.get(w.roomId) ?? [];
        return { roomId: w.roomId, afterSeq: rows.length > limit ? (rows[0]?.seq as number) : 0, upToSeq: w.head };
      });
      const shadowedOf = groupBy(await shadowedBetween(db, spans, shadowedHeld + 1), (r) => r.roomId);
      return wanted.map((w) => ({ key: keyOf(w), rows: rowsOf.get(w.roomId) ?? [], shadowed: shadowedOf.get(w.roomId) ?? [] }));
    };
    // One room at two heads cannot be read by one statement (its rows would mix): the second head goes in a statement after.
    const inRounds = async (wanted: LatestWanted[], limit: number): Promise<Read[]> => {
      const first = new Map(wanted.map((w) => [w.roomId, w]));
      const rest = wanted.filter((w) => first.get(w.roomId) !== w);
      return [...(await read([...first.values()], limit)), ...(rest.length === 0 ? [] : await inRounds(rest, limit))];
    };
    this.pages = new ReadBatcher({
      read: (wanted) =>
        readByScope(
          wanted,
          (w) => String(w.limit),
          (_, ofLimit) => inRounds(ofLimit, (ofLimit[0] as LatestWanted).limit),
        ),
      keyOf,
      keyOfValue: (r) => r.key,
      log,
      name: 'latest_pages',
    });
  }

  /** The rows of the room's latest page, read after the request began. */
  async read(wanted: LatestWanted): Promise<LatestRowsRead> {
    return (await this.pages.get(wanted)) as Read;
  }
}
