import type { ComponentChildren, JSX } from 'preact';
import { seg } from '../api.js';
import type { Ctx } from '../context.js';
import type { ChatEvent, Comment, Page, Report, ReportedUser } from '../types.js';
import { ActionButton, ErrorNote, Loading, useLoad, when, who } from '../ui.js';

/**
 * No WebSocket topic carries the application-wide queues, so they are polled this often (only
 * while the tab is visible); a decision refreshes its queue at once.
 */
const POLL_MS = 3000;

export function Moderation({ ctx }: { ctx: Ctx }) {
  const events = useLoad(() => ctx.api.get<Page<'events', ChatEvent>>('chat/moderation/queues/events?limit=50'), [], POLL_MS);
  const comments = useLoad(() => ctx.api.get<Page<'comments', Comment>>('comment/moderation/queues/comments?limit=50'), [], POLL_MS);
  const users = useLoad(() => ctx.api.get<Page<'reportedusers', ReportedUser>>('user/moderation/queues/reportedusers?limit=50'), [], POLL_MS);

  const decideEvent = (id: string, approve: boolean) => ctx.api.post(`chat/moderation/queues/events/${seg(id)}/applydecision`, { approve }).then(() => events.reload());
  const decideComment = (id: string, approve: boolean) => ctx.api.post(`comment/moderation/queues/comments/${seg(id)}/applydecision`, { approve }).then(() => comments.reload());
  const userEffect = (userid: string, effect: 'ban' | 'mute' | 'shadowban') => ctx.api.post(`user/users/${seg(userid)}/${effect}`, { applyeffect: true }).then(() => users.reload());

  return (
    <section aria-labelledby="moderation-title">
      <h1 id="moderation-title">Moderation</h1>
      <p class="muted small">Queues refresh every {POLL_MS / 1000} s.</p>
      <div class="queues">
        <Queue title="Chat messages" id="chat-queue" error={events.error} items={events.data?.events}>
          {(e: ChatEvent) => (
            <QueueItem key={e.id} author={who(e.user, e.userid)} added={e.added} body={e.body} where={<a href={`#/rooms/${encodeURIComponent(e.roomid)}`}>Watch the room live</a>} state={e.moderation} reports={e.reports}>
              <Decision what="message" author={who(e.user, e.userid)} decide={(approve) => decideEvent(e.id, approve)} />
            </QueueItem>
          )}
        </Queue>
        <Queue title="Comments" id="comment-queue" error={comments.error} items={comments.data?.comments}>
          {(c: Comment) => (
            <QueueItem key={c.id} author={who(c.user, c.userid)} added={c.added} body={c.body} where={`conversation ${c.conversationid}`} state={c.moderation} reports={c.reports}>
              <Decision what="comment" author={who(c.user, c.userid)} decide={(approve) => decideComment(c.id, approve)} />
            </QueueItem>
          )}
        </Queue>
        <Queue title="Reported users" id="user-queue" error={users.error} items={users.data?.reportedusers}>
          {(u: ReportedUser) => (
            <li key={u.userid} class="card">
              <div class="card-head">
                <strong>{who(u.user, u.userid)}</strong>
                <span class="badge warn">{u.reportcount} reports</span>
              </div>
              <ReportList reports={u.reports} />
              <div class="actions">
                <ActionButton run={() => userEffect(u.userid, 'ban')} done={`Banned ${u.userid}.`} danger label={`Ban ${u.userid}`}>
                  Ban
                </ActionButton>
                <ActionButton run={() => userEffect(u.userid, 'mute')} done={`Muted ${u.userid}.`} label={`Mute ${u.userid}`}>
                  Mute
                </ActionButton>
                <ActionButton run={() => userEffect(u.userid, 'shadowban')} done={`Shadow banned ${u.userid}.`} label={`Shadow ban ${u.userid}`}>
                  Shadow ban
                </ActionButton>
              </div>
            </li>
          )}
        </Queue>
      </div>
      <p class="muted small">Users flagged in a room by reports are listed, with Confirm and Dismiss, under the room’s user effects.</p>
    </section>
  );
}

function Queue<T>({ title, id, error, items, children }: { title: string; id: string; error: string | null; items: T[] | undefined; children: (item: T) => JSX.Element }) {
  return (
    <section aria-labelledby={id} class="queue">
      <h2 id={id}>
        {title} {items !== undefined && <span class="count">{items.length}</span>}
      </h2>
      <ErrorNote error={error} />
      {items === undefined ? error === null && <Loading /> : items.length === 0 ? <p class="muted">Nothing waiting.</p> : <ul class="cards">{items.map(children)}</ul>}
    </section>
  );
}

/** Approve (publish) or reject a held message or comment. */
function Decision({ what, author, decide }: { what: 'message' | 'comment'; author: string; decide: (approve: boolean) => Promise<unknown> }) {
  return (
    <>
      <ActionButton run={() => decide(true)} done={`The ${what} was approved and published.`} label={`Approve the ${what} by ${author}`}>
        Approve
      </ActionButton>
      <ActionButton run={() => decide(false)} done={`The ${what} was rejected.`} danger label={`Reject the ${what} by ${author}`}>
        Reject
      </ActionButton>
    </>
  );
}

function QueueItem(props: { author: string; added: string; body: string; where: ComponentChildren; state: string; reports: Report[]; children: ComponentChildren }) {
  return (
    <li class="card">
      <div class="card-head">
        <strong>{props.author}</strong>
        <time dateTime={props.added}>{when(props.added)}</time>
        <span class="badge">{props.state === 'pending' ? 'pre-moderation' : props.state}</span>
      </div>
      <p class="body">{props.body}</p>
      <p class="muted small">{props.where}</p>
      <ReportList reports={props.reports} />
      <div class="actions">{props.children}</div>
    </li>
  );
}

function ReportList({ reports }: { reports: { userid: string; reason?: string; reporttype?: string }[] }) {
  if (reports.length === 0) return null;
  return (
    <ul class="reports" aria-label="Reports">
      {reports.map((r) => (
        <li key={r.userid}>
          <span class="badge warn">{r.reason ?? r.reporttype ?? 'report'}</span> by {r.userid}
        </li>
      ))}
    </ul>
  );
}
