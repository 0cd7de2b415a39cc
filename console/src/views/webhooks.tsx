import { seg } from '../api.js';
import type { Ctx } from '../context.js';
import type { LogEntry, Page, Webhook } from '../types.js';
import { ActionButton, ErrorNote, Loading, useLoad, when } from '../ui.js';

/** The delivery log is polled: deliveries are not pushed on any topic. */
const LOG_POLL_MS = 5000;

export function Webhooks({ ctx, webhookid }: { ctx: Ctx; webhookid: string | undefined }) {
  const hooks = useLoad(() => ctx.api.get<Page<'webhooks', Webhook>>('webhook/hooks?limit=200'), []);
  // The update takes the whole hook: it is sent back as listed, with `enabled` flipped.
  const setEnabled = (hook: Webhook, enabled: boolean) =>
    ctx.api
      .put(`webhook/hooks/${seg(hook.id)}`, { label: hook.label, url: hook.url, enabled, type: hook.type, events: hook.events, requiredcustomtags: hook.requiredcustomtags, entities: hook.entities })
      .then(() => hooks.reload());
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <ErrorNote error={hooks.error} />
      {hooks.data === undefined ? (
        hooks.error === null && <Loading />
      ) : hooks.data.webhooks.length === 0 ? (
        <p class="muted">No webhooks.</p>
      ) : (
        <ul class="cards">
          {hooks.data.webhooks.map((h) => (
            <li key={h.id} class="card">
              <div class="card-head">
                <a href={`#/webhooks/${encodeURIComponent(h.id)}`} aria-current={h.id === webhookid ? 'page' : undefined}>
                  {h.label}
                </a>
                <span class={`badge ${h.enabled ? 'ok' : 'off'}`}>{h.enabled ? 'enabled' : 'disabled'}</span>
                {h.consecutivefailures > 0 && <span class="badge warn">{h.consecutivefailures} failures in a row</span>}
              </div>
              <p class="muted small url">
                {h.type} → {h.url}
              </p>
              <p class="small">{h.events.length === 0 ? 'No events' : h.events.join(', ')}</p>
              <div class="actions">
                <a class="button" href={`#/webhooks/${encodeURIComponent(h.id)}`}>
                  Delivery log<span class="sr-only"> of {h.label}</span>
                </a>
                <ActionButton run={() => setEnabled(h, !h.enabled)} done={`${h.label} ${h.enabled ? 'disabled' : 'enabled'}.`} label={`${h.enabled ? 'Disable' : 'Enable'} ${h.label}`}>
                  {h.enabled ? 'Disable' : 'Enable'}
                </ActionButton>
              </div>
            </li>
          ))}
        </ul>
      )}
      {webhookid !== undefined && <DeliveryLog key={webhookid} ctx={ctx} webhookid={webhookid} />}
    </section>
  );
}

function DeliveryLog({ ctx, webhookid }: { ctx: Ctx; webhookid: string }) {
  const log = useLoad(() => ctx.api.get<Page<'logentries', LogEntry>>(`webhook/hooks/${seg(webhookid)}/logentries?limit=50`), [webhookid], LOG_POLL_MS);
  return (
    <section aria-labelledby="log-title">
      <h2 id="log-title">Delivery log</h2>
      <ErrorNote error={log.error} />
      {log.data === undefined ? (
        log.error === null && <Loading />
      ) : log.data.logentries.length === 0 ? (
        <p class="muted">No deliveries yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Latency</th>
                <th scope="col">Attempt</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {log.data.logentries.map((e) => (
                <tr key={e.id}>
                  <td>{when(e.added)}</td>
                  <td>{e.eventtype}</td>
                  <td>
                    <span class={`badge ${e.statuscode !== null && e.statuscode < 300 ? 'ok' : 'warn'}`}>{e.statuscode ?? 'no answer'}</span>
                  </td>
                  <td>{e.elapsed === null ? '—' : `${e.elapsed} ms`}</td>
                  <td>{e.attempt}</td>
                  <td class="small">{e.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="muted small">Refreshes every {LOG_POLL_MS / 1000} s.</p>
    </section>
  );
}
