import { notFound } from '../http/errors.js';
import type { RequestContext } from '../http/route.js';

/** A path parameter; one holding NUL (%00) cannot be stored, so it names nothing: 404. */
export function pathParam(ctx: RequestContext, name: string): string {
  const value = ctx.params[name] as string;
  if (value.includes('\u0000')) throw notFound(`No ${name} ${JSON.stringify(value)} exists.`);
  return value;
}
