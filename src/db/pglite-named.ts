import { protocol, type PGlite } from '@electric-sql/pglite';
import { ScratchBytes } from '../scratch-bytes.js';
import { bindMessage, type DescribedStatement, describedStatement, rowsOfAnswer, type NotificationListener } from './pglite-wire.js';

/** Runs a named statement: `name` always stands for the same `text`. */
export type NamedQuery = (name: string, text: string, values: unknown[]) => Promise<{ rows: unknown[] }>;

const { serialize } = protocol;
/** What follows every bind: the same bytes each call, so made once. */
const RUN = Buffer.concat([serialize.execute({}), serialize.sync()]);

/**
 * Named statements on PGlite. Its `query` parses, describes and plans the text on every call, in
 * six protocol exchanges; a chat append spent two thirds of its CPU there. Here a statement is
 * parsed and described once (what it takes and the fields of its rows), then each call binds,
 * executes and syncs in one exchange. Values are serialised and rows parsed with PGlite's own
 * type handlers, as `query` does (the bind written and the rows read with Node's Buffer, see
 * pglite-wire.ts). The call holds both of PGlite's locks, as `query` does, so it never runs
 * inside another caller's transaction. Notifications a statement commits go to `heard`.
 */
export function pgliteNamedQuery(client: PGlite, heard: NotificationListener): NamedQuery {
  /** Each statement prepared on this connection, as Describe told it. */
  const prepared = new Map<string, DescribedStatement>();
  /** The answer being read: calls run one at a time, and its rows copy out what they keep. */
  const answer = new ScratchBytes();

  async function prepare(name: string, text: string): Promise<DescribedStatement> {
    const known = prepared.get(name);
    if (known !== undefined) return known;
    const answer = await client.execProtocolRaw(Buffer.concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]), { syncToFs: false });
    const described = describedStatement(Buffer.from(answer), client.parsers);
    prepared.set(name, described);
    return described;
  }

  return (name, text, values) =>
    client._runExclusiveTransaction(() =>
      client._runExclusiveQuery(async () => {
        const { parameterTypes, fields } = await prepare(name, text);
        const params = values.map((value, i) => {
          if (value === null || value === undefined) return null;
          const serializer = client.serializers[parameterTypes[i] as number];
          return String(serializer === undefined ? value : serializer(value));
        });
        answer.clear();
        // PGlite lends each chunk of its answer from the database's memory: copied before the next.
        await client.execProtocolRawStream(Buffer.concat([bindMessage(name, params, fields.resultFormats), RUN]), {
          syncToFs: true,
          onRawData: (bytes) => answer.append(bytes),
        });
        return { rows: rowsOfAnswer(answer.bytes(), fields, heard) };
      }),
    );
}
