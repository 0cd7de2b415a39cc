import * as v from 'valibot';
import { assertActingAs } from '../http/auth.js';
import { ok, route, type RequestContext, type RouteDef } from '../http/route.js';
import { validate } from '../http/validation.js';
import type { TelemetryLimits } from './limits.js';
import { telemetrySchemas } from './schemas.js';
import type { TelemetryService } from './service.js';
import type { SignalKind, SignalOp } from './signal.js';

const BASE = 'telemetry/contexts/:contextid';

interface BatchError {
  index: number;
  field: string;
  message: string;
}

export function telemetryRoutes(telemetry: TelemetryService, limits: TelemetryLimits): RouteDef[] {
  const { BatchBody, BatchOp, HeartbeatBody, IncrementBody, PathIds, SampleBody } = telemetrySchemas(limits);
  const pathIds = (ctx: RequestContext) => validate(PathIds, ctx.params, 'path');
  /** Applies one operation of the user in ctx and answers with the signal it changed. */
  const single = async (ctx: RequestContext, userid: string, kind: SignalKind, amount: number) => {
    const { contextid, key } = pathIds(ctx);
    assertActingAs(ctx, userid);
    await telemetry.record(ctx.app.id, contextid, userid, [{ kind, key: key as string, amount }]);
    const { asof, signal } = await telemetry.signal(ctx.app.id, contextid, kind, key as string);
    return ok({ kind: 'telemetry.signal', contextid, asof, signal });
  };

  return [
    route({ method: 'POST', path: `${BASE}/presence/:key/heartbeat`, writes: false, limit: 'telemetry', body: HeartbeatBody, handler: (ctx) => single(ctx, ctx.body.userid, 'presence', 1) }),
    route({ method: 'POST', path: `${BASE}/metrics/:key/increment`, writes: false, limit: 'telemetry', body: IncrementBody, handler: (ctx) => single(ctx, ctx.body.userid, 'metric', ctx.body.by) }),
    route({ method: 'POST', path: `${BASE}/gauges/:key/sample`, writes: false, limit: 'telemetry', body: SampleBody, handler: (ctx) => single(ctx, ctx.body.userid, 'gauge', ctx.body.value) }),
    route({
      method: 'POST',
      path: `${BASE}/batch`,
      writes: false,
      limit: 'telemetry',
      body: BatchBody,
      handler: async (ctx) => {
        const { contextid } = pathIds(ctx);
        assertActingAs(ctx, ctx.body.userid);
        const errors: BatchError[] = [];
        const valid: { index: number; signal: SignalOp }[] = [];
        ctx.body.ops.forEach((raw, index) => {
          const parsed = v.safeParse(BatchOp, raw, { abortPipeEarly: true });
          if (!parsed.success) {
            const issue = parsed.issues[0];
            const field = (issue === undefined ? undefined : v.getDotPath(issue)) ?? 'op';
            errors.push({ index, field, message: issue?.input === undefined && issue?.kind === 'schema' ? 'is required' : (issue?.message ?? 'is invalid') });
            return;
          }
          const op = parsed.output;
          const signal: SignalOp =
            op.op === 'heartbeat'
              ? { kind: 'presence', key: op.key, amount: 1 }
              : op.op === 'increment'
                ? { kind: 'metric', key: op.key, amount: op.by }
                : { kind: 'gauge', key: op.key, amount: op.value };
          valid.push({ index, signal });
        });
        // Each operation is judged against the context as the ones before it in the batch leave it.
        const fits = await telemetry.recordFitting(
          ctx.app.id,
          contextid,
          ctx.body.userid,
          valid.map((op) => op.signal),
        );
        let accepted = 0;
        valid.forEach(({ index }, k) => {
          if (fits[k] === true) accepted += 1;
          else errors.push({ index, field: 'key', message: 'would add a signal beyond the context limit' });
        });
        errors.sort((x, y) => x.index - y.index);
        return ok({ kind: 'telemetry.batchresult', contextid, accepted, rejected: errors.length, errors });
      },
    }),
    route({
      method: 'GET',
      path: BASE,
      handler: async (ctx) => ok(await telemetry.snapshot(ctx.app.id, pathIds(ctx).contextid)),
    }),
  ];
}
