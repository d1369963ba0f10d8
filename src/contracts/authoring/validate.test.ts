import { describe, expect, it } from 'vitest';
import { scanForSentinels } from '../../../test/helpers/sentinels.js';
import { Refusal } from '../../core/refusal/index.js';
import { type Doc, dashboard, model, semanticModel, source, yamlOf } from '../fixtures/resources.js';
import { isValidatedResource, readResource } from './validate.js';
import { parseStrictYaml } from './yaml.js';

function refusal(action: () => unknown): Refusal {
  try {
    action();
  } catch (error: unknown) {
    if (error instanceof Refusal) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

const read = (text: string | Uint8Array) =>
  readResource(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);

/** Every code a refusal reports: the first, then the others found in the same file. */
const codesOf = (error: Refusal): string[] => [error, ...error.also].map((one) => one.code);

describe('strict YAML', () => {
  it.each([
    ['a BOM', Buffer.from('\ufeffkind: Source\n'), 'contract_yaml_not_utf8'],
    ['invalid UTF-8', Buffer.from([0x6b, 0x3a, 0x20, 0xff, 0x0a]), 'contract_yaml_not_utf8'],
    ['a duplicate key', 'kind: Source\nid: a.b\nid: a.c\n', 'contract_yaml_duplicate_key'],
    [
      'a duplicate key spelled with quotes',
      'kind: Source\n"id": a.b\nid: a.c\n',
      'contract_yaml_duplicate_key',
    ],
    ['two documents', 'kind: Source\n---\nkind: Model\n', 'contract_yaml_multiple_documents'],
    ['no document', '# only a comment\n', 'contract_yaml_multiple_documents'],
    ['an anchor and alias', 'kind: Source\ntags: &t [a]\nname: *t\n', 'contract_yaml_alias'],
    ['an anchor alone', 'kind: &k Source\n', 'contract_yaml_alias'],
    ['an explicit tag', 'kind: !!str Source\n', 'contract_yaml_tag'],
    ['a custom tag', 'kind: !thing Source\n', 'contract_yaml_tag'],
    ['a non-string key', 'kind: Source\n1: one\n', 'contract_yaml_key_not_string'],
    ['a complex key', 'kind: Source\n? [a, b]\n: c\n', 'contract_yaml_key_not_string'],
    ['a hex number', 'kind: Source\nn: 0x1F\n', 'contract_yaml_number_inexact'],
    ['an octal number', 'kind: Source\nn: 0o17\n', 'contract_yaml_number_inexact'],
    ['an infinite number', 'kind: Source\nn: .inf\n', 'contract_yaml_number_inexact'],
    ['NaN', 'kind: Source\nn: .nan\n', 'contract_yaml_number_inexact'],
    ['a number with leading zeros (a zip code?)', 'kind: Source\nn: 007\n', 'contract_yaml_number_inexact'],
    ['an integer beyond 2^53', 'kind: Source\nn: 9007199254740993\n', 'contract_yaml_number_inexact'],
    [
      'a decimal a double rounds',
      'kind: Source\nn: 0.10000000000000000555\n',
      'contract_yaml_number_inexact',
    ],
    ['an overflowing exponent', 'kind: Source\nn: 1e400\n', 'contract_yaml_number_inexact'],
    ['a lone surrogate escape', 'kind: Source\nname: "\\uD800"\n', 'contract_text_invalid'],
    ['unclosed flow', 'kind: [Source\n', 'contract_yaml_malformed'],
    ['deep nesting', `kind: Source\nx: ${'['.repeat(40)}${']'.repeat(40)}\n`, 'contract_yaml_too_deep'],
  ])('refuses %s', (_label, text, code) => {
    // A value-level fault is reported with the schema errors of the same file.
    expect(codesOf(refusal(() => read(text)))).toContain(code);
  });

  it('reports every value-level fault of a file with its schema errors, in file order', () => {
    const text = yamlOf(
      source({
        fields: [
          { name: 'a', type: 'string', nullable: 'no' },
          { name: 'b', type: 'int64' },
        ],
      }),
    )
      .replace('name: a\n', 'name: "\\uD800"\n')
      .replace('name: b\n', 'name: b\n    critical_data_element: 0x1F\n');
    const error = refusal(() => read(text));
    expect([error, ...error.also].map((one) => [one.code, one.location?.pointer])).toEqual([
      ['contract_text_invalid', 'fields[0].name'],
      ['contract_field_invalid', 'fields[0].nullable'],
      // The number is refused as YAML; the schema's view of the same value is not a second error.
      ['contract_yaml_number_inexact', 'fields[1].critical_data_element'],
    ]);
  });

  it('keeps exact plain decimals and strings, and never turns YAML 1.1 booleans or dates into other types', () => {
    expect(
      parseStrictYaml(Buffer.from('a: 1.50\nb: -0.25e1\nc: yes\nd: 2024-01-31\ne: 12:30:00\nf: ~\n')),
    ).toEqual({
      a: 1.5,
      b: -2.5,
      c: 'yes',
      d: '2024-01-31',
      e: '12:30:00',
      f: null,
    });
  });
});

describe('the authoring schemas', () => {
  const cases: [string, Doc, string, string | undefined][] = [
    ['an unknown top-level field', { ...source(), owner_email: 'x' }, 'contract_field_unknown', undefined],
    [
      'an unknown nested field',
      source({ fields: [{ name: 'a', type: 'string', nulable: true }] }),
      'contract_field_unknown',
      'fields[]',
    ],
    ['a missing required field', { ...source(), fields: undefined }, 'contract_field_missing', 'fields'],
    ['a missing id', { ...source(), id: undefined }, 'contract_field_missing', 'id'],
    [
      'a wrong type',
      source({ fields: [{ name: 'a', type: 'string', nullable: 'no' }] }),
      'contract_field_invalid',
      'fields[].nullable',
    ],
    [
      'an unknown enum value',
      source({ fields: [{ name: 'a', type: 'string', classification: 'secret' }] }),
      'contract_field_invalid',
      'fields[].classification',
    ],
    ['an id with uppercase', source({ id: 'Retail.orders' }), 'contract_identifier_invalid', 'id'],
    ['an id with an empty segment', source({ id: 'retail..orders' }), 'contract_identifier_invalid', 'id'],
    ['a non-ASCII name', source({ name: 'bestellungen_ü' }), 'contract_identifier_invalid', 'name'],
    [
      'a bad version',
      source({ contract: { version: '1.0', compatibility: 'full' } }),
      'contract_identifier_invalid',
      'contract.version',
    ],
    [
      'a version with a leading zero',
      source({ contract: { version: '1.02.0', compatibility: 'full' } }),
      'contract_identifier_invalid',
      'contract.version',
    ],
    [
      'an unknown physical type',
      source({ fields: [{ name: 'a', type: 'varchar' }] }),
      'contract_type_invalid',
      'fields[].type',
    ],
    [
      'a decimal beyond 38 digits',
      source({ fields: [{ name: 'a', type: 'decimal(39,2)' }] }),
      'contract_type_invalid',
      'fields[].type',
    ],
    ['no fields', source({ fields: [] }), 'contract_field_invalid', 'fields'],
    [
      'an unknown check type',
      model({ checks: [{ type: 'regex', field: 'a' }] }),
      'contract_field_invalid',
      'checks[].type',
    ],
    [
      'a condition with value and values',
      semanticModel({
        filters: [{ name: 'f', conditions: [{ dimension: 'status', op: 'in', value: 'a' }] }],
      }),
      // One typo, not also a missing `values`: the unknown key names it.
      'contract_field_unknown',
      'filters[].conditions[]',
    ],
    [
      'a relationship target without a member',
      semanticModel({
        relationships: [{ name: 'r', fields: ['a'], to: 'customers_sm', cardinality: 'one_to_one' }],
      }),
      'contract_identifier_invalid',
      'relationships[].to',
    ],
    [
      'a dashboard with contract metadata',
      dashboard({ contract: { version: '1.0.0', compatibility: 'full' } }),
      'contract_field_unknown',
      undefined,
    ],
    ['an unknown kind', { ...source(), kind: 'Metric' }, 'contract_kind_unknown', 'kind'],
    ['no kind', { ...source(), kind: undefined }, 'contract_kind_unknown', 'kind'],
  ];

  it.each(cases)('refuses %s with a code and an allowlisted field path', (_label, doc, code, field) => {
    const error = refusal(() => read(yamlOf(doc)));
    expect(error.code).toBe(code);
    expect(error.field).toBe(field);
  });

  it('refuses a document that is not a mapping', () => {
    expect(refusal(() => read('- kind: Source\n')).code).toBe('contract_kind_unknown');
    expect(refusal(() => read('just text\n')).code).toBe('contract_kind_unknown');
  });

  it('reports an unknown key where it is written with the nearest allowed key, never a value', () => {
    const planted = source({
      fields: [
        { name: 'order_id', type: 'int64' },
        { name: 'SECRET_COLUMN_ZQ', type: 'string', nulable: 'VALUE_ZQ_1' },
      ],
    });
    const text = yamlOf(planted);
    const error = refusal(() => read(text));
    expect(error.code).toBe('contract_field_unknown');
    // `field` keeps its schema-only form; the key path and position are in `location`.
    expect(error.field).toBe('fields[]');
    const line = text.split('\n').findIndex((row) => row.includes('nulable')) + 1;
    expect(error.location).toEqual({ line, column: 5, pointer: 'fields[1].nulable' });
    expect(error.hint).toBe("did you mean 'nullable'?");
    const printed = { stdout: JSON.stringify(error.toJSON()), stderr: '' };
    expect(scanForSentinels(printed, [], ['SECRET_COLUMN_ZQ', 'VALUE_ZQ_1'])).toEqual([]);
  });

  it('reports every schema issue of a file at once, in the order they are written', () => {
    const doc = source({
      fields: [
        { name: 'a', typ: 'string' },
        { name: 'b', type: 'string', classification: 'secret' },
      ],
    });
    const error = refusal(() => read(yamlOf(doc)));
    expect([error, ...error.also].map((one) => [one.code, one.location?.pointer, one.hint])).toEqual([
      // `typ` is the missing `type` misspelt: one error, which names the key to write.
      ['contract_field_unknown', 'fields[0].typ', "did you mean 'type'?"],
      [
        'contract_field_invalid',
        'fields[1].classification',
        'expected one of public, internal, confidential, restricted',
      ],
    ]);
  });

  it.each([
    ['a quoted two-part version', { version: '1.3' }, 'contract.version', null],
    ['a v prefix', { version: 'v1.3.0' }, 'contract.version', '1.3.0'],
    ['a leading zero', { version: '1.03.0' }, 'contract.version', '1.3.0'],
    ['a pre-release suffix', { version: '1.3.0-rc1' }, 'contract.version', null],
  ])('regression: a malformed version says what a version is: %s', (_label, contract, pointer, meant) => {
    const doc = source({ contract: { compatibility: 'backward', ...contract } });
    const error = refusal(() => read(yamlOf(doc)));
    const rule =
      'a version is MAJOR.MINOR.PATCH: three whole numbers without leading zeros or suffixes, e.g. 1.3.0';
    expect([error.code, error.location?.pointer, error.hint]).toEqual([
      'contract_identifier_invalid',
      pointer,
      meant === null ? rule : `did you mean '${meant}'? ${rule}`,
    ]);
  });

  it('regression: an unquoted two-part version (a YAML number) says how to write it', () => {
    const error = refusal(() =>
      read(
        'kind: Source\nid: t.source.orders\nname: orders\ncontract:\n  version: 1.3\n  compatibility: backward\nfields:\n  - {name: a, type: string}\n',
      ),
    );
    expect([error.code, error.location?.pointer, error.hint]).toEqual([
      'contract_field_invalid',
      'contract.version',
      'a version is written MAJOR.MINOR.PATCH, e.g. version: 1.3.0 (a YAML string without quotes)',
    ]);
  });

  it('regression: an id or a name out of its rules says what they are, with the lowercase one meant', () => {
    const error = refusal(() => read(yamlOf(source({ id: 'T.Source.Orders', name: 'Orders' }))));
    expect([error, ...error.also].map((one) => [one.location?.pointer, one.hint])).toEqual([
      [
        'id',
        "did you mean 't.source.orders'? an id is lowercase segments separated by dots, each starting with a letter (letters, digits, _ and -), e.g. retail.source.orders",
      ],
      [
        'name',
        "did you mean 'orders'? a name is lowercase letters, digits and _, starting with a letter or _, at most 63 characters, e.g. order_facts",
      ],
    ]);
  });

  it('says what to add for a missing field and what was expected for a mistyped one', () => {
    const doc = source({ fields: [{ name: 'a', type: 'strng', nullable: 'no' }] });
    delete (doc as { id?: unknown }).id;
    const error = refusal(() => read(yamlOf(doc)));
    expect([error, ...error.also].map((one) => [one.code, one.location?.pointer, one.hint])).toEqual([
      [
        'contract_field_missing',
        'id',
        "add 'id' at the top level: an id such as retail.source.orders (lowercase segments separated by dots)",
      ],
      ['contract_type_invalid', 'fields[0].type', "did you mean 'string'?"],
      ['contract_field_invalid', 'fields[0].nullable', 'expected true or false, found a string'],
    ]);
  });

  it.each([
    [
      "'value' beside op in",
      { dimension: 'status', op: 'in', value: 'x' },
      "op 'in' takes 'values' (a list)",
    ],
    [
      "'values' beside op eq",
      { dimension: 'status', op: 'eq', values: ['x'] },
      "op 'eq' takes 'value' (one literal)",
    ],
    [
      'a value beside op is_null',
      { dimension: 'status', op: 'is_null', value: 'x' },
      "op 'is_null' takes no value",
    ],
    [
      'no values beside op not_in',
      { dimension: 'status', op: 'not_in' },
      "op 'not_in' takes 'values' (a list)",
    ],
  ])(
    'regression: a condition operand that does not fit its operator says what the operator takes: %s',
    (_label, condition, hint) => {
      const doc = semanticModel({ filters: [{ name: 'f', conditions: [condition] }] });
      const error = refusal(() => read(yamlOf(doc)));
      expect([error, ...error.also].map((one) => one.hint)).toEqual([hint]);
    },
  );

  it.each([
    ['a near misspelling', 'eqq', "did you mean 'eq'? "],
    ['a familiar other name', '>=', "did you mean 'gte'? "],
    ['nothing near', 'approximately', ''],
  ])('regression: an unknown operator lists the operators: %s', (_label, op, near) => {
    const doc = semanticModel({
      filters: [{ name: 'f', conditions: [{ dimension: 'status', op, value: 1 }] }],
    });
    const error = refusal(() => read(yamlOf(doc)));
    expect([error.code, error.location?.pointer, error.hint]).toEqual([
      'contract_field_invalid',
      'filters[0].conditions[0].op',
      `${near}expected one of eq, ne, lt, lte, gt, gte, in, not_in, is_null, is_not_null`,
    ]);
  });

  /** Every error of a file as [code, pointer, line, column, hint]. */
  const errorsOf = (text: string) =>
    (() => {
      const error = refusal(() => read(text));
      return [error, ...error.also].map((one) => [
        one.code,
        one.location?.pointer,
        one.location?.line,
        one.location?.column,
        one.hint,
      ]);
    })();

  it('regression: a refinement (a day that does not exist, a decimal scale above its precision) is reported by the schema step, with the other errors of the file, at its value', () => {
    const text = [
      'kind: Source',
      'id: t.source.orders',
      'name: orders',
      'fields:',
      '  - name: amount',
      '    type: decimal(12,14)',
      '    nulable: false',
      '  - name: coupon',
      '    type: string',
      '    deprecation:',
      '      guidance: Use promotion_id.',
      '      sunset: 2027-02-29',
      '',
    ].join('\n');
    expect(errorsOf(text)).toEqual([
      [
        'contract_type_invalid',
        'fields[0].type',
        6,
        11,
        "a decimal's scale S is at most its precision P; decimal(12,14) has S > P",
      ],
      ['contract_field_unknown', 'fields[0].nulable', 7, 5, "did you mean 'nullable'?"],
      [
        'contract_field_invalid',
        'fields[1].deprecation.sunset',
        12,
        15,
        'expected a calendar date that exists, YYYY-MM-DD: a month from 01 to 12 and a day the month has',
      ],
    ]);
  });

  it.each([
    [
      'a precision above 38',
      'decimal(40,2)',
      "a decimal's precision P is 1 to 38 digits; decimal(40,2) has 40",
    ],
    ['no scale', 'decimal(12)', 'a decimal needs a precision and a scale: decimal(P,S), e.g. decimal(12,2)'],
    ['spaces', 'decimal(12, 2)', 'write it as decimal(12,2): lowercase, without spaces'],
    ["another database's name", 'bigint', "did you mean 'int64'?"],
    ['numeric', 'NUMERIC(12,2)', 'write it as decimal(12,2): lowercase, without spaces'],
  ])(
    'regression: a physical type out of its rules is one error that says which rule: %s',
    (_label, type, hint) => {
      const doc = source({ fields: [{ name: 'a', type }] });
      const error = refusal(() => read(yamlOf(doc)));
      expect([error.code, error.location?.pointer, error.hint, error.also.length]).toEqual([
        'contract_type_invalid',
        'fields[0].type',
        hint,
        0,
      ]);
    },
  );

  it('regression: a date in another form says the form it takes', () => {
    const doc = source({
      fields: [{ name: 'a', type: 'string', deprecation: { guidance: 'x', sunset: '30.06.2027' } }],
    });
    expect(errorsOf(yamlOf(doc)).map((one) => one.at(-1))).toEqual([
      'expected a calendar date such as 2027-06-30 (YYYY-MM-DD)',
    ]);
  });

  it.each([
    [
      "a check's type",
      model({ checks: [{ tpye: 'unique', fields: ['order_id'] }] }),
      'checks[0].tpye',
      "did you mean 'type'?",
    ],
    [
      "a condition's op",
      semanticModel({
        filters: [{ name: 'f', conditions: [{ dimension: 'status', opp: 'eq', value: 'x' }] }],
      }),
      'filters[0].conditions[0].opp',
      "did you mean 'op'?",
    ],
    [
      'the kind',
      (() => {
        const { kind, ...rest } = source();
        return { knd: kind, ...rest };
      })(),
      'knd',
      "did you mean 'kind'?",
    ],
  ])(
    'regression: a misspelt key that chooses between shapes (%s) is one unknown key with the key meant, not a list of the shapes',
    (_label, doc, pointer, hint) => {
      const error = refusal(() => read(yamlOf(doc)));
      expect([error.code, error.location?.pointer, error.hint, error.also.length]).toEqual([
        'contract_field_unknown',
        pointer,
        hint,
        0,
      ]);
    },
  );

  it.each([
    [
      "a check's type",
      model({ checks: [{ fields: ['order_id'] }] }),
      'checks[0].type',
      "add 'type' to checks[0]: one of unique, not_null, accepted_values",
    ],
    [
      "a condition's op",
      semanticModel({ filters: [{ name: 'f', conditions: [{ dimension: 'status', value: 'x' }] }] }),
      'filters[0].conditions[0].op',
      "add 'op' to filters[0].conditions[0]: one of eq, ne, lt, lte, gt, gte, in, not_in, is_null, is_not_null",
    ],
    [
      "a deprecation's guidance",
      source({ fields: [{ name: 'a', type: 'string', deprecation: { sunset: '2027-06-30' } }] }),
      'fields[0].deprecation.guidance',
      "add 'guidance' to fields[0].deprecation: text of at most 4096 characters",
    ],
    [
      "a field's type",
      source({ fields: [{ name: 'a' }] }),
      'fields[0].type',
      "add 'type' to fields[0]: a physical type: string, boolean, int8 … int64, float32, float64, decimal(P,S) (1 ≤ P ≤ 38, S ≤ P), date, time, timestamp, timestamp_tz, binary or json",
    ],
  ])(
    'regression: a missing required key (%s) is field_missing naming the key, its parent and what it takes',
    (_label, doc, pointer, hint) => {
      const error = refusal(() => read(yamlOf(doc)));
      expect([error.code, error.location?.pointer, error.hint, error.also.length]).toEqual([
        'contract_field_missing',
        pointer,
        hint,
        0,
      ]);
    },
  );

  it.each([
    [
      'a literal that is a list',
      model({ checks: [{ type: 'accepted_values', field: 'order_status', values: [['x']] }] }),
      'checks[0].values[0]',
      'expected a string, a number or true or false, found a list',
    ],
    [
      'a field name with a leading space',
      source({ fields: [{ name: ' a', type: 'string' }] }),
      'fields[0].name',
      'expected a field name: 1 to 128 characters, no leading or trailing space',
    ],
    [
      'a negative row count',
      source({ runtime: { row_count: -1 } }),
      'runtime.row_count',
      'expected a whole number of 0 or more',
    ],
    [
      'a list written as text',
      source({ fields: [{ name: 'a', type: 'string' }], tags: 'retail' }),
      'tags',
      'expected a list of strings, found a string',
    ],
    [
      'a misspelt compatibility',
      source({ contract: { version: '1.0.0', compatibility: 'backwards' } }),
      'contract.compatibility',
      "did you mean 'backward'? expected one of backward, forward, full, none",
    ],
  ])('regression: the help line says what the field accepts: %s', (_label, doc, pointer, hint) => {
    const error = refusal(() => read(yamlOf(doc)));
    expect([error.code, error.location?.pointer, error.hint, error.also.length]).toEqual([
      'contract_field_invalid',
      pointer,
      hint,
      0,
    ]);
  });

  it('regression: a control character in a description, label, title or tag is refused where it is written', () => {
    const text = [
      'kind: SemanticModel',
      'id: t.semantic.orders',
      'name: orders_sm',
      'model: facts',
      'description: "Orders\\u0007 of the shop"',
      'tags: [retail, "eu\\u001b[31m"]',
      'dimensions:',
      '  - name: status',
      '    type: categorical',
      '    field: order_status',
      '    label: "Order\\nstatus"',
      '    description: |',
      '      Tabs\tand line',
      '      breaks are prose; a raw \u0085 is not.',
      '',
    ].join('\n');
    expect(errorsOf(text)).toEqual([
      [
        'contract_text_invalid',
        'description',
        5,
        14,
        'control character U+0007 (character 7 of the text): remove it (a description may hold tabs and line breaks, no other control character)',
      ],
      [
        'contract_text_invalid',
        'tags[1]',
        6,
        16,
        'control character U+001B (character 3 of the text): remove it (a tag is one line of text without control characters)',
      ],
      [
        'contract_text_invalid',
        'dimensions[0].label',
        11,
        12,
        'control character U+000A (character 6 of the text): remove it (a label is one line of text without control characters)',
      ],
      // Written as it is (a literal block): the character itself.
      [
        'contract_text_invalid',
        'dimensions[0].description',
        14,
        31,
        'control character U+0085 here: remove it (a description may hold tabs and line breaks, no other control character)',
      ],
    ]);
    const title = dashboard({ title: 'Sales\toverview' });
    expect(errorsOf(yamlOf(title)).map((one) => [one[0], one[1]])).toEqual([
      ['contract_text_invalid', 'title'],
    ]);
  });

  it('regression: an unquoted decimal type in a flow mapping is one error that says to quote it', () => {
    const text = 'kind: Source\nid: a.b\nname: b\nfields:\n  - { name: amount, type: decimal(12, 2) }\n';
    const error = refusal(() => read(text));
    expect([error, ...error.also].map((one) => [one.code, one.location, one.hint])).toEqual([
      [
        'contract_type_invalid',
        { line: 5, column: 27, pointer: 'fields[0].type' },
        'quote the type inside { }, where a comma ends a value: type: "decimal(12,2)"',
      ],
    ]);
  });

  it('returns a deeply frozen resource with defaults materialized, registered as validated', () => {
    const resource = read(yamlOf(source()));
    expect(isValidatedResource(resource)).toBe(true);
    expect(isValidatedResource({ ...resource })).toBe(false);
    expect(Object.isFrozen(resource)).toBe(true);
    if (resource.kind !== 'Source') throw new Error('kind');
    const [first] = resource.fields;
    expect(Object.isFrozen(first)).toBe(true);
    expect(first).toMatchObject({
      classification: 'internal',
      critical_data_element: false,
      authoritative_definitions: [],
    });
  });
});
