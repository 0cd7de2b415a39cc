import { useEffect, useState } from 'preact/hooks';
import { seg } from '../api.js';
import type { Ctx } from '../context.js';
import type { Page, Room, Snapshot } from '../types.js';
import { ActionButton, ErrorNote, Loading, Stats, notify, errorText, useLoad, when } from '../ui.js';

/** Participant counts come from the room list, refreshed this often. */
const REFRESH_MS = 5000;
/** Each row watches one telemetry context: the per-socket subscription cap is 100. */
const MAX_ROOMS = 50;

/** The telemetry context the console reads a room's presence from: its custom id, else its id. */
export const presenceContext = (room: Room) => room.customid || room.id;

export function Rooms({ ctx }: { ctx: Ctx }) {
  const [filter, setFilter] = useState('');
  const rooms = useLoad(
    () => ctx.api.get<Page<'rooms', Room>>(`chat/rooms?limit=${MAX_ROOMS}${filter === '' ? '' : `&filterByName=${encodeURIComponent(filter)}`}`),
    [filter],
    REFRESH_MS,
  );
  return (
    <section aria-labelledby="rooms-title">
      <div class="title-row">
        <h1 id="rooms-title">Rooms</h1>
        <label class="inline">
          <span>Filter by name</span>
          <input type="search" value={filter} onInput={(e) => setFilter((e.target as HTMLInputElement).value)} />
        </label>
      </div>
      <CreateRoom ctx={ctx} onCreated={() => void rooms.reload()} />
      <ErrorNote error={rooms.error} />
      {rooms.data === undefined ? (
        rooms.error === null && <Loading />
      ) : rooms.data.rooms.length === 0 ? (
        <p class="muted">No rooms yet.</p>
      ) : (
        <ul class="cards" aria-label="Rooms">
          {rooms.data.rooms.map((room) => (
            <RoomCard key={room.id} ctx={ctx} room={room} onChange={() => void rooms.reload()} />
          ))}
        </ul>
      )}
      <p class="muted small">Participants refresh every {REFRESH_MS / 1000} s; presence is pushed live from each room’s telemetry context (its custom id, else its id).</p>
    </section>
  );
}

function RoomCard({ ctx, room, onChange }: { ctx: Ctx; room: Room; onChange: () => void }) {
  const presence = usePresence(ctx, presenceContext(room));
  const setOpen = (open: boolean) => ctx.api.post(`chat/rooms/${seg(room.id)}`, { roomisopen: open }).then(onChange);
  return (
    <li class="card room-card">
      <div class="card-head">
        <a href={`#/rooms/${encodeURIComponent(room.id)}`} class="room-name">
          {room.name}
        </a>
        <span class={`badge ${room.open ? 'ok' : 'off'}`}>{room.open ? 'open' : 'closed'}</span>
        {room.moderation === 'pre' && <span class="badge">pre-moderated</span>}
      </div>
      <Stats
        items={[
          ['Participants', room.inroom, 'participants'],
          ['Watching', presence, 'presence'],
          ['Last message', when(room.lastmessagetime)],
        ]}
      />
      <div class="actions">
        <a class="button" href={`#/rooms/${encodeURIComponent(room.id)}`}>
          Watch live<span class="sr-only"> {room.name}</span>
        </a>
        {room.open ? (
          <ActionButton run={() => setOpen(false)} done={`Closed ${room.name}.`} label={`Close ${room.name}`}>
            Close
          </ActionButton>
        ) : (
          <ActionButton run={() => setOpen(true)} done={`Opened ${room.name}.`} label={`Open ${room.name}`}>
            Open
          </ActionButton>
        )}
      </div>
    </li>
  );
}

/** Distinct users present in the context now (the largest presence signal), pushed live. */
export function usePresence(ctx: Ctx, contextid: string): number {
  const [active, setActive] = useState(0);
  useEffect(
    () =>
      ctx.live.watch(`context:${contextid}`, (frame) => {
        if (frame.type !== 'event') return;
        const snapshot = frame.data as Snapshot;
        setActive(Math.max(0, ...snapshot.signals.filter((s) => s.kind === 'presence').map((s) => s.active)));
      }),
    [contextid],
  );
  return active;
}

function CreateRoom({ ctx, onCreated }: { ctx: Ctx; onCreated: () => void }) {
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const formElement = e.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const body: Record<string, unknown> = { name: String(form.get('name')).trim(), moderation: form.get('moderation'), maxreports: Number(form.get('maxreports')) };
    const customid = String(form.get('customid')).trim();
    if (customid !== '') body['customid'] = customid;
    setBusy(true);
    try {
      const room = await ctx.api.post<Room>('chat/rooms', body);
      notify(`Created ${room.name}.`);
      formElement.reset();
      onCreated();
    } catch (err) {
      notify(errorText(err), true);
    } finally {
      setBusy(false);
    }
  };
  return (
    <details class="panel">
      <summary>Create a room</summary>
      <form class="grid-form" onSubmit={submit}>
        <label>
          <span>Name</span>
          <input name="name" required maxLength={250} />
        </label>
        <label>
          <span>Custom id (optional)</span>
          <input name="customid" maxLength={250} spellcheck={false} />
        </label>
        <label>
          <span>Moderation</span>
          <select name="moderation">
            <option value="post">Post: shown at once</option>
            <option value="pre">Pre: held for approval</option>
          </select>
        </label>
        <label>
          <span>Reports before a message is held</span>
          <input name="maxreports" type="number" min={0} defaultValue={3} required />
        </label>
        <button type="submit" class="primary" disabled={busy}>
          Create room
        </button>
      </form>
    </details>
  );
}
