import { parseArgs } from 'node:util';
import * as v from 'valibot';
import { RATE_LIMIT_ENV, rateLimitConfig, type RateLimitConfig } from '../../src/limits/config.js';

export const SCENARIOS = ['kickoff', 'goal', 'chat', 'watch', 'mixed'] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface Options {
  urls: string[];
  /** Where the sockets connect: the --ws-url's, else the --url's. */
  wsUrls: string[];
  scenario: Scenario;
  fans: number;
  durationSeconds: number;
  /** How the tester gets an application: a manage token (it creates one), or an existing app and server token. */
  auth: { manageToken: string } | { appid: string; token: string };
  /** Chat posts per second; undefined: the scenario's own. */
  rate: number | undefined;
  /** Sockets held on the room, spread over the URLs. */
  sockets: number;
  /** Requests in flight at most, across every URL. */
  concurrency: number;
  /** The budgets the server enforces, to stay inside (its defaults unless --limit says otherwise). */
  limits: RateLimitConfig;
  /** Figure → the most it may be (p50, p99, deliveryP50, deliveryP99). */
  slo: Record<string, number>;
}

export const USAGE = `npm run loadtest -- --url URL [--url URL2 …] (--manage-token T | --app ID --token T)
  --scenario kickoff|goal|chat|watch|mixed  --fans N  --duration S
  [--rate POSTS_PER_S] [--sockets N] [--ws-url URL …] [--concurrency N] [--slo p99=200,deliveryP99=500]
  [--limit RATE_LIMIT_CHAT=30/10s …]   the server's budgets, when not its defaults`;

const SLO_KEYS = new Set(['p50', 'p99', 'deliveryP50', 'deliveryP99']);

function positive(name: string, value: string | undefined, fallback: number): number {
  const n = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number of at least 1`);
  return n;
}

function slo(specs: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of specs.flatMap((s) => s.split(','))) {
    const [key, value] = part.split('=');
    if (key === undefined || !SLO_KEYS.has(key) || !(Number(value) > 0)) throw new Error(`--slo ${part}: expected one of ${[...SLO_KEYS].join(', ')}=<ms>`);
    out[key] = Number(value);
  }
  return out;
}

/** The server's budgets: its defaults (src/limits/config.ts) with the --limit overrides, checked as the server checks them. */
function limits(specs: string[]): RateLimitConfig {
  const env = Object.fromEntries(specs.map((s) => s.split('=') as [string, string]));
  const parsed = v.safeParse(v.object(RATE_LIMIT_ENV), env);
  if (!parsed.success) throw new Error(`--limit: ${parsed.issues.map((i) => `${v.getDotPath(i) ?? ''} ${i.message}`).join('; ')}`);
  return rateLimitConfig(parsed.output);
}

/** Options whose values are secrets: random text that may begin with a dash, which parseArgs would take for an option ("argument is ambiguous"). */
const SECRETS = new Set(['--token', '--manage-token']);

/** `--token -x…` as `--token=-x…`: a secret is the value of the option before it, whatever it begins with. */
function secretsJoined(argv: string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = argv[i + 1];
    if (SECRETS.has(arg) && value !== undefined) {
      joined.push(`${arg}=${value}`);
      i++;
    } else joined.push(arg);
  }
  return joined;
}

export function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: secretsJoined(argv),
    options: {
      url: { type: 'string', multiple: true },
      'ws-url': { type: 'string', multiple: true },
      'manage-token': { type: 'string' },
      app: { type: 'string' },
      token: { type: 'string' },
      scenario: { type: 'string' },
      fans: { type: 'string' },
      duration: { type: 'string' },
      rate: { type: 'string' },
      sockets: { type: 'string' },
      concurrency: { type: 'string' },
      slo: { type: 'string', multiple: true },
      limit: { type: 'string', multiple: true },
    },
  });
  const trimmed = (list: string[] | undefined) => (list ?? []).map((u) => u.replace(/\/+$/, ''));
  const urls = trimmed(values.url);
  if (urls.length === 0) throw new Error('--url is required');
  const wsUrls = trimmed(values['ws-url']);
  const scenario = values.scenario as Scenario;
  if (!SCENARIOS.includes(scenario)) throw new Error(`--scenario must be one of ${SCENARIOS.join(', ')}`);
  const manageToken = values['manage-token'];
  const auth = manageToken !== undefined ? { manageToken } : values.app !== undefined && values.token !== undefined ? { appid: values.app, token: values.token } : undefined;
  if (auth === undefined) throw new Error('give --manage-token, or --app and --token (a server token)');
  const fans = positive('fans', values.fans, 100);
  const rate = values.rate === undefined ? undefined : Number(values.rate);
  if (rate !== undefined && !(rate >= 0)) throw new Error('--rate must be a number of posts per second');
  return {
    urls,
    wsUrls: wsUrls.length > 0 ? wsUrls : urls,
    scenario,
    fans,
    durationSeconds: positive('duration', values.duration, 30),
    auth,
    rate,
    sockets: Math.min(fans, positive('sockets', values.sockets, Math.min(fans, 1000))),
    concurrency: positive('concurrency', values.concurrency, 64),
    limits: limits(values.limit ?? []),
    slo: slo(values.slo ?? []),
  };
}
