import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api } from './api.js';
import type { Ctx } from './context.js';
import { Live, type LiveStatus } from './live.js';
import { loadSession, saveSession, type Session } from './session.js';
import { NoticeRegion } from './ui.js';
import { Moderation } from './views/moderation.js';
import { Polls } from './views/polls.js';
import { RoomLive } from './views/room.js';
import { Rooms } from './views/rooms.js';
import { SignIn } from './views/sign-in.js';
import { Webhooks } from './views/webhooks.js';

const NAV = [
  ['rooms', 'Rooms'],
  ['moderation', 'Moderation'],
  ['polls', 'Polls'],
  ['webhooks', 'Webhooks'],
] as const;

const STATUS_TEXT: Record<LiveStatus, string> = { connecting: 'Connecting…', live: 'Live', offline: 'Reconnecting…', refused: 'Live updates refused' };

/** `#/rooms/ID` → ['rooms', 'ID']. */
function useRoute(): string[] {
  const read = () =>
    location.hash
      .replace(/^#\/?/, '')
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const changed = () => setRoute(read());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const ctx = useMemo<Ctx | null>(() => (session === null ? null : { session, api: new Api(session), live: new Live(session) }), [session]);
  useEffect(() => () => ctx?.live.close(), [ctx]);
  if (ctx === null) {
    return (
      <SignIn
        onSignIn={(s) => {
          saveSession(s);
          setSession(s);
          if (location.hash === '') location.hash = '#/rooms';
        }}
      />
    );
  }
  return (
    <Shell
      ctx={ctx}
      onSignOut={() => {
        saveSession(null);
        setSession(null);
      }}
    />
  );
}

function Shell({ ctx, onSignOut }: { ctx: Ctx; onSignOut: () => void }) {
  const route = useRoute();
  const [status, setStatus] = useState<LiveStatus>(ctx.live.status);
  useEffect(() => {
    const unsubscribe = ctx.live.onStatus(setStatus);
    // The socket may have become live between the first render and this subscription.
    setStatus(ctx.live.status);
    return unsubscribe;
  }, [ctx]);
  const [section = 'rooms', id] = route;
  // Focus moves to the new view's heading, so keyboard and screen-reader users land on it.
  useEffect(() => {
    const heading = document.querySelector<HTMLElement>('main h1');
    if (heading === null) return;
    heading.tabIndex = -1;
    heading.focus();
  }, [section, id]);
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Engage console</span>
        <nav aria-label="Sections">
          <ul>
            {NAV.map(([key, label]) => (
              <li key={key}>
                <a href={`#/${key}`} aria-current={section === key ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class={`live-status ${status}`} data-testid="live-status">
          {STATUS_TEXT[status]}
        </span>
        <span class="account">
          <span class="who small" title={`app ${ctx.session.appid}`}>
            {ctx.session.userid} · {ctx.session.role} · app {ctx.session.appid}
          </span>
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </span>
      </header>
      <NoticeRegion />
      <main id="main" tabIndex={-1}>
        <View ctx={ctx} section={section} id={id} />
      </main>
    </>
  );
}

function View({ ctx, section, id }: { ctx: Ctx; section: string; id: string | undefined }) {
  switch (section) {
    case 'rooms':
      return id === undefined ? <Rooms ctx={ctx} /> : <RoomLive key={id} ctx={ctx} roomid={id} />;
    case 'moderation':
      return <Moderation ctx={ctx} />;
    case 'polls':
      return <Polls ctx={ctx} pollid={id} />;
    case 'webhooks':
      return <Webhooks ctx={ctx} webhookid={id} />;
    default:
      return <p>Nothing here. Pick a section above.</p>;
  }
}

const root = document.getElementById('app');
if (root !== null) {
  root.textContent = '';
  render(<App />, root);
}
