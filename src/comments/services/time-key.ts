import { isCursorTime } from '../../http/cursor.js';
import type { Comment, TimeKey } from '../types.js';

/** A cursor's position: the ISO time and id of the row it continues after (as these services wrote it). */
export const isTimeKey = (x: unknown): x is TimeKey => typeof x === 'object' && x !== null && isCursorTime((x as TimeKey).a) && typeof (x as TimeKey).i === 'string';

export const timeKeyOf = (c: Comment): TimeKey => ({ a: c.added.toISOString(), i: c.id });
