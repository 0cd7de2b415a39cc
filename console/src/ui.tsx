import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

type NoticeListener = (notice: Notice) => void;
export interface Notice {
  text: string;
  error: boolean;
  id: number;
}

const listeners = new Set<NoticeListener>();
let noticeCounter = 0;

/** Announces an outcome in the page's status region (read out by screen readers). */
export function notify(text: string, error = false): void {
  noticeCounter += 1;
  for (const listener of listeners) listener({ text, error, id: noticeCounter });
}

export function NoticeRegion() {
  const [notice, setNotice] = useState<Notice | null>(null);
  useEffect(() => {
    const listener = (n: Notice) => setNotice(n);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  useEffect(() => {
    if (notice === null || notice.error) return;
    const timer = setTimeout(() => setNotice(null), 4000);
    return () => clearTimeout(timer);
  }, [notice]);
  return (
    <div class={`notice${notice?.error ? ' notice-error' : ''}`} role="status" aria-live="polite">
      {notice?.text}
    </div>
  );
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Loads data, again whenever `deps` change and, with `everyMs`, on an interval (pausing while
 * the tab is hidden). `reload` refreshes at once.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], everyMs?: number) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(load);
  latest.current = load;
  const reload = useCallback(async () => {
    try {
      setData(await latest.current());
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  }, []);
  useEffect(() => {
    setData(undefined);
    void reload();
    if (everyMs === undefined) return;
    const timer = setInterval(() => document.visibilityState === 'visible' && void reload(), everyMs);
    return () => clearInterval(timer);
  }, deps);
  return { data, error, reload, setData };
}

/** A button that runs an async action, shows that it is busy, and reports the outcome. */
export function ActionButton(props: { run: () => Promise<unknown>; done?: string; children: ComponentChildren; danger?: boolean; label?: string }) {
  const [busy, setBusy] = useState(false);
  const click = async () => {
    setBusy(true);
    try {
      await props.run();
      if (props.done !== undefined) notify(props.done);
    } catch (err) {
      notify(errorText(err), true);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" class={props.danger ? 'danger' : ''} disabled={busy} aria-busy={busy} aria-label={props.label} onClick={click}>
      {props.children}
    </button>
  );
}

/** Figures side by side: [label, value, test id]. */
export function Stats({ items }: { items: [string, ComponentChildren, string?][] }) {
  return (
    <dl class="stats">
      {items.map(([label, value, testid]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd data-testid={testid}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function ErrorNote({ error }: { error: string | null }) {
  return error === null ? null : (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

export function Loading() {
  return <p class="muted">Loading…</p>;
}

export function when(iso: string | null): string {
  if (iso === null) return '—';
  const d = new Date(iso);
  return d.toLocaleString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', month: 'short', day: 'numeric' });
}

export function who(user: { handle: string; displayname: string } | null, userid: string | null): string {
  if (user !== null && user.displayname !== '') return `${user.displayname} (@${user.handle})`;
  return userid ?? 'system';
}
