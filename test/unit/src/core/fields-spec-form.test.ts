/**
 * A field's spec form (`specForm`, src/core/fields.ts): the boundary requires it of the spec's value, so the
 * type the schema claims is what the spec holds. Without it, an otel resource attribute object in a
 * hand-written metric server spec passed (its rule judges the decoded object) and reached PVE as an object.
 */
import { optional, required, specSchema } from '../../../../src/core/fields';
import { parseAs } from '../../../../src/core/parse';
import { integer, text } from '../../../../src/core/rules';
import { metricServerSpec } from '../../../../src/pve/metric-server';

const TOY = {
  id: required({ rule: text(), spec: true }),
  size: optional({
    rule: integer(1),
    spec: { group: 'options', key: 'size' },
    specForm: text('a number as text', /^\d+$/),
    encode: String,
    decode: (value: unknown) => (typeof value === 'string' ? Number(value) : value),
  }),
};
const toySpec = specSchema(TOY, 'a toy spec');

describe('specForm', () => {
  test('a value in its spec form passes, judged by the rule once decoded', () => {
    expect(parseAs(toySpec, { id: 'a', options: { size: '3' } }, 'spec')).toEqual({ id: 'a', options: { size: '3' } });
    expect(() => parseAs(toySpec, { id: 'a', options: { size: '0' } }, 'spec')).toThrow(
      'spec.options.size: must be an integer of at least 1, got 0',
    );
  });

  test("a value its rule lets through but not in the spec's form is refused, once", () => {
    expect(() => parseAs(toySpec, { id: 'a', options: { size: 3 } }, 'spec')).toThrow(
      /^Bad input: spec\.options\.size: must be a number as text, got 3$/,
    );
  });

  test('a metric server spec holding resource attributes as an object, not base64, is refused', () => {
    const spec = {
      id: 'otel',
      type: 'opentelemetry',
      server: 'otel.lan',
      port: 4318,
      options: { 'otel-resource-attributes': { site: 'lab' } },
    };
    expect(() => parseAs(metricServerSpec, spec, 'spec')).toThrow(
      'spec.options.otel-resource-attributes: must be the base64 of a JSON object, got {"site":"lab"}',
    );
  });
});
