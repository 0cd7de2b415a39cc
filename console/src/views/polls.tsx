import { useEffect, useState } from 'preact/hooks';
import { seg } from '../api.js';
import type { Ctx } from '../context.js';
import type { Page, Poll, Standings } from '../types.js';
import { ErrorNote, Loading, errorText, useLoad } from '../ui.js';

export function Polls({ ctx, pollid }: { ctx: Ctx; pollid: string | undefined }) {
  const polls = useLoad(() => ctx.api.get<Page<'polls', Poll>>('poll/poll?includeunpublished=true&limit=100'), []);
  return (
    <section aria-labelledby="polls-title">
      <h1 id="polls-title">Polls</h1>
      <ErrorNote error={polls.error} />
      <div class="split">
        <nav aria-label="Polls">
          {polls.data === undefined ? (
            polls.error === null && <Loading />
          ) : polls.data.polls.length === 0 ? (
            <p class="muted">No polls yet.</p>
          ) : (
            <ul class="picker">
              {polls.data.polls.map((p) => (
                <li key={p.id}>
                  <a href={`#/polls/${encodeURIComponent(p.id)}`} aria-current={p.id === pollid ? 'page' : undefined}>
                    {p.title || p.id} <span class="badge">{p.status}</span>
                  </a>
                </li>
              ))}
            </ul>
          )}
        </nav>
        {pollid === undefined ? <p class="muted">Pick a poll to watch its standings live.</p> : <PollStandings key={pollid} ctx={ctx} pollid={pollid} />}
      </div>
    </section>
  );
}

/** The standings from REST, then every `poll.standings` pushed on the poll's topic. */
function PollStandings({ ctx, pollid }: { ctx: Ctx; pollid: string }) {
  const [standings, setStandings] = useState<Standings | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stop: (() => void) | undefined;
    let cancelled = false;
    stop = ctx.live.watch(`poll:${pollid}`, (frame) => {
      if (frame.type === 'event') setStandings(frame.data as Standings);
    });
    ctx.api.get<Standings>(`poll/poll/${seg(pollid)}/standings`).then(
      (s) => !cancelled && setStandings((pushed) => pushed ?? s),
      (err) => !cancelled && setError(errorText(err)),
    );
    return () => {
      cancelled = true;
      stop?.();
    };
  }, [pollid]);
  if (error !== null) return <ErrorNote error={error} />;
  if (standings === undefined) return <Loading />;
  return <StandingsChart standings={standings} />;
}

const ROW = 44;
const LABEL_WIDTH = 38; // percent of the width for the choice titles

export function StandingsChart({ standings }: { standings: Standings }) {
  const top = Math.max(1, ...standings.choices.map((c) => c.count));
  const height = Math.max(1, standings.choices.length) * ROW;
  return (
    <figure class="chart">
      <figcaption>
        <strong data-testid="total-votes">{standings.totalresponses}</strong> votes
      </figcaption>
      <svg viewBox={`0 0 100 ${height}`} preserveAspectRatio="none" width="100%" height={height} aria-hidden="true">
        {standings.choices.map((c, i) => {
          const width = ((100 - LABEL_WIDTH - 14) * c.count) / top;
          return (
            <g key={c.choiceid}>
              <rect class="track" x={LABEL_WIDTH} y={i * ROW + 10} width={100 - LABEL_WIDTH - 14} height={ROW - 20} rx="1" />
              <rect class="bar" x={LABEL_WIDTH} y={i * ROW + 10} width={width} height={ROW - 20} rx="1" data-choice={c.title} data-count={c.count} />
            </g>
          );
        })}
      </svg>
      <ol class="chart-labels" style={{ height: `${height}px` }}>
        {standings.choices.map((c) => (
          <li key={c.choiceid} style={{ height: `${ROW}px` }}>
            <span class="choice" style={{ width: `${LABEL_WIDTH}%` }}>
              {c.title}
            </span>
            <span class="figure" data-testid={`count-${c.title}`}>
              {c.count} · {c.percentage}%
            </span>
          </li>
        ))}
      </ol>
    </figure>
  );
}
