import { useState } from 'preact/hooks';
import { Api, ApiError, call } from '../api.js';
import { jwtClaims, type Session } from '../session.js';
import { errorText } from '../ui.js';

interface AppChoice {
  appid: string;
  name: string;
}

type Mode = 'moderator' | 'manage';

/**
 * Two ways in: an app id with a client token and a moderator's user token, or the operator's
 * manage token, which lists the applications and mints an API token for the one picked (the
 * manage token itself is then forgotten).
 */
export function SignIn({ onSignIn }: { onSignIn: (s: Session) => void }) {
  const [mode, setMode] = useState<Mode>('moderator');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const attempt = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <h1>Engage console</h1>
      <fieldset class="mode">
        <legend>Sign in with</legend>
        <label>
          <input type="radio" name="mode" checked={mode === 'moderator'} onChange={() => setMode('moderator')} /> A moderator's user token
        </label>
        <label>
          <input type="radio" name="mode" checked={mode === 'manage'} onChange={() => setMode('manage')} /> The manage token
        </label>
      </fieldset>
      {mode === 'moderator' ? <ModeratorForm key="moderator" busy={busy} attempt={attempt} onSignIn={onSignIn} /> : <ManageForm key="manage" busy={busy} attempt={attempt} onSignIn={onSignIn} />}
      {error !== null && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </main>
  );
}

interface FormProps {
  busy: boolean;
  attempt: (work: () => Promise<void>) => Promise<void>;
  onSignIn: (s: Session) => void;
}

function ModeratorForm({ busy, attempt, onSignIn }: FormProps) {
  const submit = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const appid = String(form.get('appid')).trim();
    const token = String(form.get('token')).trim();
    const jwt = String(form.get('jwt')).trim();
    void attempt(async () => {
      const claims = jwtClaims(jwt);
      if (typeof claims.userid !== 'string') throw new Error('The user token has no userid claim.');
      if (claims.role !== 'moderator' && claims.role !== 'admin') throw new Error('The user token must be a moderator’s or an admin’s.');
      const session: Session = { appid, token, jwt, userid: claims.userid, role: claims.role };
      // The moderation queue answers only a valid token with a moderator's verified user token.
      await new Api(session).get('chat/moderation/queues/events?limit=1');
      onSignIn(session);
    });
  };
  return (
    <form onSubmit={submit} autocomplete="off">
      <label for="appid">Application id</label>
      <input id="appid" name="appid" required autocomplete="off" spellcheck={false} />
      <label for="token">Client token</label>
      <input id="token" name="token" type="password" required autocomplete="off" />
      <label for="jwt">Moderator’s user token (JWT)</label>
      <input id="jwt" name="jwt" type="password" required autocomplete="off" />
      <button type="submit" class="primary" disabled={busy}>
        Sign in
      </button>
    </form>
  );
}

function ManageForm({ busy, attempt, onSignIn }: FormProps) {
  const [manageToken, setManageToken] = useState('');
  const [apps, setApps] = useState<AppChoice[] | 'ask' | null>(null);

  const listApps = (e: Event) => {
    e.preventDefault();
    void attempt(async () => {
      try {
        setApps(await listedApps(manageToken));
      } catch (err) {
        // Servers without the listing: the operator types the app id.
        if (err instanceof ApiError && err.status === 404) setApps('ask');
        else throw err;
      }
    });
  };

  const signIn = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const appid = String(form.get('app')).trim();
    const userid = String(form.get('userid')).trim() || 'console';
    void attempt(async () => {
      const minted = await call<{ token: string }>('POST', '/api/v3/manage/createtoken', { 'x-manage-token': manageToken }, { applicationid: appid, name: `console ${userid}` });
      setManageToken('');
      onSignIn({ appid, token: minted.token, jwt: '', userid, role: 'admin' });
    });
  };

  if (apps === null) {
    return (
      <form key="manage-token" onSubmit={listApps} autocomplete="off">
        <label for="manage">Manage token</label>
        <input id="manage" type="password" required autocomplete="off" value={manageToken} onInput={(e) => setManageToken((e.target as HTMLInputElement).value)} />
        <button type="submit" class="primary" disabled={busy}>
          Continue
        </button>
      </form>
    );
  }
  return (
    // Keyed apart from the token step, so no input element (and its label link) is reused.
    <form key="pick-app" onSubmit={signIn} autocomplete="off">
      {apps === 'ask' ? (
        <>
          <label for="pick-app">Application id</label>
          <input id="pick-app" name="app" required spellcheck={false} />
        </>
      ) : (
        <>
          <label for="pick-app">Application</label>
          <select id="pick-app" name="app" required>
            {apps.map((a) => (
              <option value={a.appid}>
                {a.name} ({a.appid})
              </option>
            ))}
          </select>
        </>
      )}
      <label for="userid">Act as user id (announcements, purges)</label>
      <input id="userid" name="userid" defaultValue="console" required spellcheck={false} />
      <button type="submit" class="primary" disabled={busy}>
        Sign in
      </button>
    </form>
  );
}

/** Pages of applications the choice lists at most; a server with more has the operator type the id. */
const MOST_APP_PAGES = 10;

/** Every application, a page at a time (oldest first), or 'ask' past MOST_APP_PAGES pages. */
async function listedApps(manageToken: string): Promise<AppChoice[] | 'ask'> {
  const apps: AppChoice[] = [];
  let cursor = '';
  for (let page = 0; page < MOST_APP_PAGES; page++) {
    const after = cursor === '' ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const data = await call<unknown>('GET', `/api/v3/manage/applications?limit=200${after}`, { 'x-manage-token': manageToken });
    apps.push(...appChoices(data));
    cursor = nextCursor(data);
    if (cursor === '') return apps;
  }
  return 'ask';
}

/** The cursor of the application list's next page; '' when this was the last (or the server does not page). */
function nextCursor(data: unknown): string {
  if (Array.isArray(data)) return '';
  const record = data as Record<string, unknown>;
  return record['more'] === true && typeof record['cursor'] === 'string' ? record['cursor'] : '';
}

/** Reads the application list whatever its item key (`applications`, `items`, or a bare array). */
function appChoices(data: unknown): AppChoice[] {
  const record = data as Record<string, unknown> | unknown[];
  const items = Array.isArray(record) ? record : ((record['applications'] ?? record['items'] ?? []) as unknown[]);
  return items.map((item) => {
    const a = item as Record<string, unknown>;
    return { appid: String(a['appid'] ?? a['id']), name: String(a['name'] ?? '') };
  });
}
