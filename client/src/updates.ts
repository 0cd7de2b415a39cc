import type { EventMeta } from './types.js';

/** A room's REST `updates` page, asked with `positions=true`: each event's seq and cursor beside it. */
export interface UpdatesPage {
  events: unknown[];
  cursor: string;
  more: boolean;
  positions?: { seq: number; cursor: string }[];
}

const PAGE_SIZE = 500;

/**
 * The page of a room's feed after `cursor`, read with the API token only (so it holds what the
 * WebSocket shows). Refusals throw `{code, message}`: `bad_request` for a cursor the server does not know.
 */
export async function updatesAfter(base: string, apiToken: string, roomId: string, cursor: string): Promise<UpdatesPage> {
  const res = await fetch(`${base}/chat/rooms/${encodeURIComponent(roomId)}/updates?positions=true&limit=${PAGE_SIZE}&cursor=${encodeURIComponent(cursor)}`, {
    headers: { 'x-api-token': apiToken },
  });
  const body = (await res.json()) as { message?: string; data?: UpdatesPage };
  if (!res.ok || body.data === undefined) throw { code: res.status === 400 ? 'bad_request' : `http_${res.status}`, message: body.message ?? res.statusText };
  return body.data;
}

/** The i-th event's meta: its seq and cursor, as live events carry them. */
export function caughtUpMeta(topic: string, page: UpdatesPage, i: number): EventMeta {
  const at = page.positions?.[i];
  return at === undefined ? { topic, event: 'chat.event', catchup: true } : { topic, event: 'chat.event', seq: at.seq, cursor: at.cursor, catchup: true };
}
