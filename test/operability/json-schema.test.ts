import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { jsonSchemaOf } from '../../src/docs/json-schema.js';
import { flag, integer, paging, text } from '../../src/http/fields.js';

describe('valibot schemas in the API documents', () => {
  it('describes what a client may send (the input side, before transforms)', () => {
    const schema = v.object({ enabled: flag(), count: v.optional(integer(1, 10), 5), name: text(20), ...paging(10, 100) });
    expect(jsonSchemaOf(schema)).toEqual({
      type: 'object',
      properties: {
        enabled: { anyOf: [{ type: 'boolean' }, { type: 'string' }, { type: 'number' }] },
        count: { anyOf: [{ type: 'number' }, { type: 'string' }], default: 5 },
        name: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        limit: { anyOf: [{ type: 'number' }, { type: 'string' }], default: 10 },
        cursor: { type: 'string', default: '' },
      },
      required: ['enabled', 'name'],
    });
  });

  it('degrades to a schema that accepts anything where it cannot convert, rather than failing', () => {
    expect(jsonSchemaOf(v.custom<string>((x) => typeof x === 'string'))).toEqual({});
    expect(jsonSchemaOf(v.object({ when: v.instance(Date) }))).toEqual({ type: 'object', properties: { when: {} }, required: ['when'] });
    type Tree = { child?: Tree };
    const Tree: v.GenericSchema<Tree> = v.object({ child: v.optional(v.lazy(() => Tree)) });
    expect(jsonSchemaOf(Tree)).toEqual({});
    expect(jsonSchemaOf({ kind: 'schema', type: 'not-a-schema' } as unknown as v.GenericSchema)).toEqual({});
  });
});
