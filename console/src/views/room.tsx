import { useEffect, useRef, useState } from 'preact/hooks';
import { seg } from '../api.js';
import type { Ctx } from '../context.js';
import { ACTION_LABELS, applyAction, confirmFlag, liftEffect, type UserAction } from '../moderation-actions.js';
import { applyEvent } from '../stream.js';
import type { ChatEvent, Page, Room } from '../types.js';
import { ActionButton, ErrorNote, Loading, Stats, errorText, notify, useLoad, when, who } from '../ui.js';
import { presenceContext, usePresence } from './rooms.js';

interface Effect {
  userid: string;
  user: { handle: string; displayname: string } | null;
  effecttype: string;
  scope: string;
  expires: string | null;
}

export function RoomLive({ ctx, roomid }: { ctx: Ctx; roomid: string }) {
  const room = useLoad(() => ctx.api.get<Room>(`chat/rooms/${seg(roomid)}`), [roomid], 5000);
  const effects = useLoad(() => ctx.api.get<Page<'usereffects', Effect>>(`chat/rooms/${seg(roomid)}/usereffects`), [roomid], 5000);
  const stream = useStream(ctx, roomid);
  const presence = usePresence(ctx, room.data === undefined ? roomid : presenceContext(room.data));

  const act = async (userid: string, action: UserAction) => {
    await applyAction(ctx, roomid, userid, action);
    void effects.reload();
  };
  const remove = (event: ChatEvent) => ctx.api.delete(`chat/rooms/${seg(roomid)}/events/${seg(event.id)}${ctx.session.jwt === '' ? '' : `?userid=${encodeURIComponent(ctx.session.userid)}`}`);

  return (
    <section aria-labelledby="room-title" class="room">
      <p>
        <a href="#/rooms">← Rooms</a>
      </p>
      <ErrorNote error={room.error} />
      <div class="title-row">
        <h1 id="room-title">{room.data?.name ?? roomid}</h1>
        {room.data !== undefined && <span class={`badge ${room.data.open ? 'ok' : 'off'}`}>{room.data.open ? 'open' : 'closed'}</span>}
      </div>
      <Stats
        items={[
          ['Participants', room.data?.inroom ?? '…', 'participants'],
          ['Watching', presence, 'presence'],
          ['Moderation', room.data?.moderation ?? '…'],
        ]}
      />
      <div class="room-layout">
        <div>
          <h2>Live stream</h2>
          <ErrorNote error={stream.error} />
          {stream.messages === undefined ? (
            <Loading />
          ) : stream.messages.length === 0 ? (
            <p class="muted">No messages yet.</p>
          ) : (
            <div role="log" aria-label="Messages" class="stream">
              <ol>
                {stream.messages.map((m) => (
                  <Message key={m.id} event={m} onAction={act} onDelete={() => remove(m)} />
                ))}
              </ol>
            </div>
          )}
        </div>
        <aside>
          <Announce ctx={ctx} roomid={roomid} />
          <h2>User effects</h2>
          <ErrorNote error={effects.error} />
          {effects.data !== undefined && effects.data.usereffects.length === 0 && <p class="muted">Nobody is banned, muted, shadow banned, bounced or flagged here.</p>}
          <ul class="effects">
            {effects.data?.usereffects.map((e) => (
              <li key={`${e.userid}/${e.scope}/${e.effecttype}`}>
                <span>
                  <strong>{who(e.user, e.userid)}</strong> <span class="badge warn">{e.effecttype}</span>{' '}
                  <span class="muted small">
                    {e.userid} · {e.scope}
                    {e.expires === null ? '' : ` until ${when(e.expires)}`}
                  </span>
                </span>
                <span class="actions">
                  {e.effecttype === 'flag' && (
                    <ActionButton run={() => confirmFlag(ctx, roomid, e.userid).then(() => effects.reload())} done={`Confirmed the flag of ${e.userid}: shadow banned here.`} label={`Confirm the flag of ${e.userid}`}>
                      Confirm
                    </ActionButton>
                  )}
                  <ActionButton run={() => liftEffect(ctx, roomid, e.userid, e.effecttype, e.scope).then(() => effects.reload())} done={`Lifted ${e.effecttype} of ${e.userid}.`} label={`${e.effecttype === 'flag' ? 'Dismiss' : 'Lift'} ${e.effecttype} of ${e.userid}`}>
                    {e.effecttype === 'flag' ? 'Dismiss' : 'Lift'}
                  </ActionButton>
                </span>
              </li>
            ))}
          </ul>
        </aside>
      </div>
    </section>
  );
}

/**
 * The room's messages: the latest page from `updates`, then every feed event over the socket
 * from that page's cursor (engage-client resumes from its last cursor after a reconnect, through
 * REST pages when far behind). A cursor it cannot resume starts the view over from REST.
 */
function useStream(ctx: Ctx, roomid: string) {
  const [messages, setMessages] = useState<ChatEvent[] | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let stop: (() => void) | undefined;
    let cancelled = false;
    setMessages(undefined);
    ctx.api.get<Page<'events', ChatEvent>>(`chat/rooms/${seg(roomid)}/updates?limit=100`).then(
      (page) => {
        if (cancelled) return;
        setMessages(page.events.reduce(applyEvent, []));
        setError(null);
        stop = ctx.live.watch(
          `room:${roomid}`,
          (frame) => {
            if (frame.type === 'event') setMessages((current) => applyEvent(current ?? [], frame.data as ChatEvent));
            else if (frame.type === 'error' && frame.code === 'bad_request') setGeneration((g) => g + 1);
            else if (frame.type === 'error') setError(frame.message ?? frame.code ?? 'error');
          },
          page.cursor,
        );
      },
      (err) => !cancelled && setError(errorText(err)),
    );
    return () => {
      cancelled = true;
      stop?.();
    };
  }, [roomid, generation]);
  return { messages, error };
}

function Message({ event, onAction, onDelete }: { event: ChatEvent; onAction: (userid: string, action: UserAction) => Promise<void>; onDelete: () => Promise<unknown> }) {
  const author = who(event.user, event.userid);
  const userid = event.userid;
  if (event.eventtype === 'enter' || event.eventtype === 'exit') {
    return (
      <li class="system-line" data-eventid={event.id}>
        {author} {event.eventtype === 'enter' ? 'joined' : 'left'} · <time dateTime={event.added}>{when(event.added)}</time>
      </li>
    );
  }
  return (
    <li class={`message${event.eventtype === 'announcement' ? ' announcement' : ''}${event.active ? '' : ' held'}`} data-eventid={event.id}>
      <div class="message-head">
        <strong>{author}</strong>
        <time dateTime={event.added}>{when(event.added)}</time>
        {event.eventtype !== 'speech' && <span class="badge">{event.eventtype}</span>}
        {event.reports.length > 0 && <span class="badge warn">{event.reports.length} reported</span>}
        {event.shadowban && <span class="badge">shadow banned</span>}
        {!event.active && <span class="badge warn">held for review</span>}
      </div>
      <p class="body">{event.body}</p>
      {event.reactions.some((r) => r.count > 0) && (
        <ul class="reactions" aria-label="Reactions">
          {event.reactions
            .filter((r) => r.count > 0)
            .map((r) => (
              <li key={r.type}>
                {r.type} <span class="count">{r.count}</span>
              </li>
            ))}
        </ul>
      )}
      {userid !== null && (
        <details class="message-actions">
          <summary>
            Moderate<span class="sr-only"> the message by {author}</span>
          </summary>
          <div class="actions">
            <ActionButton run={onDelete} done="Message deleted." danger label={`Delete the message by ${author}`}>
              Delete
            </ActionButton>
            {(Object.keys(ACTION_LABELS) as UserAction[]).map((action) => (
              <ActionButton key={action} run={() => onAction(userid, action)} done={`${ACTION_LABELS[action]}: ${author}.`} danger={action === 'ban' || action === 'purge'} label={`${ACTION_LABELS[action]} ${author}`}>
                {ACTION_LABELS[action]}
              </ActionButton>
            ))}
          </div>
        </details>
      )}
    </li>
  );
}

/** Announcements are posted as the signed-in moderator, who joins the room first (commands need a session). */
function Announce({ ctx, roomid }: { ctx: Ctx; roomid: string }) {
  const [busy, setBusy] = useState(false);
  const joined = useRef(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const formElement = e.currentTarget as HTMLFormElement;
    const text = String(new FormData(formElement).get('announcement')).trim();
    if (text === '') return;
    setBusy(true);
    try {
      const room = `chat/rooms/${seg(roomid)}`;
      if (!joined.current) await ctx.api.post(`${room}/join`, { userid: ctx.session.userid });
      joined.current = true;
      await ctx.api.post(`${room}/command`, { command: text, userid: ctx.session.userid, eventtype: 'announcement' });
      formElement.reset();
      notify('Announcement posted.');
    } catch (err) {
      notify(errorText(err), true);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} class="announce">
      <h2>Post an announcement</h2>
      <label for="announcement">Announcement, shown to everyone in the room</label>
      <textarea id="announcement" name="announcement" rows={3} required maxLength={2048} />
      <button type="submit" class="primary" disabled={busy}>
        Announce
      </button>
    </form>
  );
}
