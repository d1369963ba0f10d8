import { describe, expect, it } from 'vitest';
import { givenTestName, testSpec, testSpecOn } from './properties.js';
import { parseYaml, type YamlValue } from './yaml.js';

/** A test entry as a properties file writes it, read by the check's own YAML reader. */
const entry = (text: string): YamlValue => {
  const parsed = parseYaml(text);
  if (!parsed.ok) throw new Error(`bad YAML in the test: ${text}`);
  return parsed.value;
};

describe('testSpec', () => {
  it('reads the four runnable generic tests in their dbt spellings', () => {
    expect(testSpec(entry('not_null'))).toEqual({ kind: 'not_null' });
    expect(testSpec(entry('unique: {name: key_is_unique}'))).toEqual({ kind: 'unique' });
    expect(testSpec(entry("relationships: {to: ref('a'), field: id}"))).toEqual({
      kind: 'relationships',
      to: "ref('a')",
      field: 'id',
    });
    expect(testSpec(entry('accepted_values: {values: [a, b], quote: false}'))).toEqual({
      kind: 'accepted_values',
      values: ['a', 'b'],
      quote: false,
    });
    expect(testSpec(entry('{test_name: not_null, name: id_present}'))).toEqual({ kind: 'not_null' });
  });

  it('regression: an unsupported generic test says why: a missing argument, a misspelt one, a config, a package', () => {
    expect(testSpec(entry("relationships: {to: ref('silver_order')}"))).toEqual({
      kind: 'unsupported',
      label: 'relationships',
      hint: "relationships needs 'to' and 'field': 'field' is missing",
    });
    expect(testSpec(entry('relationships: {field: id}'))).toMatchObject({
      hint: "relationships needs 'to' and 'field': 'to' is missing",
    });
    expect(testSpec(entry('accepted_values: {}'))).toMatchObject({
      hint: "accepted_values needs 'values': 'values' is missing",
    });
    // The misspelling is the cause: 'values' is not also said to be missing.
    // Placed at the misspelt key itself (regression: was the test's entry).
    expect(testSpec(entry("accepted_values: {value: ['a']}"))).toEqual({
      kind: 'unsupported',
      label: 'accepted_values',
      hint: "accepted_values has no argument 'value': did you mean 'values'?",
      key: ['accepted_values', 'value'],
    });
    expect(testSpec(entry("relationships: {to: ref('a'), field: id, colour: red}"))).toMatchObject({
      hint: "relationships has no argument 'colour' (it takes 'to', 'field' and 'column_name')",
    });
    expect(testSpec(entry('not_null: {config: {severity: warn}}'))).toEqual({
      kind: 'unsupported',
      label: 'not_null',
      hint: "not_null has the config 'severity', which the offline check does not apply: it runs a generic test only without a config that changes whether it fails (severity: warn, warn_if, error_if, fail_calc)",
      key: ['not_null', 'config', 'severity'],
    });
    expect(testSpec(entry('unique: {where: "x > 0", limit: 5, warn_if: ">10"}'))).toMatchObject({
      hint: expect.stringMatching(/^unique has the config 'warn_if', which/),
      key: ['unique', 'warn_if'],
    });
    // where is applied, not refused: it filters the rows the test reads.
    expect(testSpec(entry('unique: {config: {where: "x > 0"}}'))).toEqual({
      kind: 'unique',
      where: { text: 'x > 0', key: ['config', 'where'] },
    });
    // regression: configs that change neither the rows tested nor the outcome were unsupported_test too.
    for (const neutral of [
      'not_null: {config: {tags: [critical], meta: {owner: data}, severity: error, enabled: true}}',
      'unique: {limit: 10, store_failures: true, alias: u, schema: audit}',
      'not_null: {config: {severity: ERROR}}',
    ])
      expect(testSpec(entry(neutral)).kind).not.toBe('unsupported');
    expect(testSpec(entry('not_null: {config: {tags: [x], severity: warn}}'))).toMatchObject({
      hint: expect.stringMatching(/^not_null has the config 'severity', which/),
      key: ['not_null', 'config', 'severity'],
    });
    expect(testSpec(entry('dbt_utils.accepted_range: {min_value: 0}'))).toEqual({
      kind: 'unsupported',
      label: 'dbt_utils.accepted_range',
      hint: "'dbt_utils.accepted_range' is a test of the package 'dbt_utils', and the offline check installs no packages: it runs not_null, unique, relationships, accepted_values",
    });
    expect(testSpec(entry('accepted_values: {values: [1, 2]}'))).toMatchObject({
      hint: "accepted_values takes a list of quoted text values for 'values' (the check compares them as text)",
    });
    expect(testSpec(entry('{not_null: {}, unique: {}}'))).toMatchObject({
      label: 'test',
      hint: "a test is a mapping with one key, the test's name (- not_null: {…}); this one has 'not_null' and 'unique'",
    });
  });

  it("regression: reads a test's own name: in the test_name: form and in the one-key form", () => {
    expect(givenTestName(entry('{name: my_nn, test_name: not_null}'))).toBe('my_nn');
    expect(givenTestName(entry('unique: {name: key_is_unique}'))).toBe('key_is_unique');
    expect(givenTestName(entry('not_null'))).toBeUndefined();
    expect(givenTestName(entry('{test_name: not_null}'))).toBeUndefined();
    expect(testSpec(entry('{test_name: not_null}'))).toEqual({ kind: 'not_null' });
    expect(testSpec(entry('{test_name: not_nul, name: my_nn}'))).toEqual({
      kind: 'unsupported',
      label: 'not_nul',
    });
    expect(testSpec(entry('{test_name: unique, name: 5}'))).toEqual({
      kind: 'unsupported',
      label: 'unique',
      hint: "unique's name is not a plain identifier (letters, digits and _), the only test names the offline check reports",
    });
  });

  it("regression: reads the arguments under arguments: in both forms, and a test's description: is no argument", () => {
    expect(testSpec(entry("relationships: {arguments: {to: ref('a'), field: id}}"))).toEqual({
      kind: 'relationships',
      to: "ref('a')",
      field: 'id',
    });
    expect(
      testSpec(entry('accepted_values: {arguments: {values: [a, b], quote: false}, description: "known"}')),
    ).toEqual({ kind: 'accepted_values', values: ['a', 'b'], quote: false });
    expect(
      testSpec(entry('{test_name: accepted_values, name: status_known, arguments: {values: [a]}}')),
    ).toEqual({ kind: 'accepted_values', values: ['a'], quote: true });
    expect(testSpec(entry('{test_name: not_null, name: status_nn, arguments: {}}'))).toEqual({
      kind: 'not_null',
    });
    // `arguments:` with nothing after it is YAML's null: no arguments.
    expect(testSpec(entry('unique: {arguments: , description: one per key}'))).toEqual({ kind: 'unique' });
    expect(testSpec(entry('not_null: {description: "present"}'))).toEqual({ kind: 'not_null' });
    expect(givenTestName(entry('unique: {name: key_once, arguments: {}}'))).toBe('key_once');
  });

  it('regression: under arguments: a misspelt, missing or ill-typed argument is named as it is beside them', () => {
    expect(testSpec(entry("accepted_values: {arguments: {value: ['a']}}"))).toEqual({
      kind: 'unsupported',
      label: 'accepted_values',
      hint: "accepted_values has no argument 'value': did you mean 'values'?",
      key: ['accepted_values', 'arguments', 'value'],
    });
    expect(testSpec(entry("relationships: {arguments: {to: ref('a')}}"))).toMatchObject({
      hint: "relationships needs 'to' and 'field' in 'arguments': 'field' is missing",
    });
    expect(testSpec(entry('accepted_values: {arguments: {values: [1, 2]}}'))).toMatchObject({
      hint: "accepted_values takes a list of quoted text values for 'values' (the check compares them as text)",
    });
    expect(testSpec(entry('accepted_values: {arguments: {values: [a], quote: "no"}}'))).toMatchObject({
      hint: "accepted_values takes true or false for 'quote'",
    });
    expect(testSpec(entry('not_null: {arguments: {column: x}}'))).toMatchObject({
      hint: "not_null has no argument 'column': did you mean 'column_name'?",
    });
    expect(testSpec(entry('not_null: {arguments: {colour: x}}'))).toMatchObject({
      hint: "not_null has no argument 'colour' (it takes 'column_name')",
    });
    // A misspelt `arguments:` is offered, and what it holds is not also said to be missing.
    expect(testSpec(entry('accepted_values: {argument: {values: [a]}}'))).toMatchObject({
      hint: "accepted_values has no argument 'argument': did you mean 'arguments'?",
    });
    expect(testSpec(entry('not_null: {descripton: present}'))).toMatchObject({
      hint: "not_null has no argument 'descripton': did you mean 'description'?",
    });
    expect(testSpec(entry('unique: {arguments: [a]}'))).toEqual({
      kind: 'unsupported',
      label: 'unique',
      hint: "'arguments' takes a mapping of unique's arguments, and dbt ignores anything else there",
      key: ['unique', 'arguments'],
    });
    expect(testSpec(entry('unique: {description: [a]}'))).toMatchObject({
      hint: "unique's description takes text",
      key: ['unique', 'description'],
    });
    expect(testSpec(entry('not_null: {arguments: {severity: warn}}'))).toMatchObject({
      hint: "not_null's 'severity' goes beside 'arguments', not in it: 'arguments' holds the test's arguments only ('column_name')",
    });
    // config: keeps its meaning beside arguments: the check applies no config.
    expect(testSpec(entry('not_null: {arguments: {}, config: {severity: warn}}'))).toMatchObject({
      hint: expect.stringMatching(
        /^not_null has the config 'severity', which the offline check does not apply/,
      ),
    });
  });

  it('regression: an argument beside arguments: is unsupported at its key, saying which one dbt keeps', () => {
    expect(testSpec(entry('accepted_values: {values: [a], arguments: {values: [a, b]}}'))).toEqual({
      kind: 'unsupported',
      label: 'accepted_values',
      hint: "accepted_values gives 'values' both in 'arguments' and beside it: dbt takes the one in 'arguments' and drops the other without a word; put every argument in 'arguments'",
      key: ['accepted_values', 'values'],
    });
    expect(testSpec(entry("{test_name: relationships, field: id, arguments: {to: ref('a')}}"))).toEqual({
      kind: 'unsupported',
      label: 'relationships',
      hint: "relationships gives 'field' beside 'arguments': dbt merges the two, but since dbt 1.10 an argument belongs in 'arguments'; put every argument there",
      key: ['field'],
    });
  });

  it("regression: reads column_name, a model's or source table's column or SQL expression, beside arguments: or in it", () => {
    expect(testSpec(entry(`unique: {column_name: "order_id || '-' || customer_id"}`))).toEqual({
      kind: 'unique',
      columnName: { text: "order_id || '-' || customer_id", key: ['unique', 'column_name'] },
    });
    expect(
      testSpec(entry('{test_name: accepted_values, arguments: {column_name: order_status, values: [a]}}')),
    ).toEqual({
      kind: 'accepted_values',
      values: ['a'],
      quote: true,
      columnName: { text: 'order_status', key: ['arguments', 'column_name'] },
    });
    // Beside arguments: dbt reads it without the warning another argument gets there.
    expect(
      testSpec(entry("relationships: {column_name: customer_id, arguments: {to: ref('a'), field: id}}")),
    ).toEqual({
      kind: 'relationships',
      to: "ref('a')",
      field: 'id',
      columnName: { text: 'customer_id', key: ['relationships', 'column_name'] },
    });
    expect(testSpec(entry('not_null: {column_name: a, arguments: {column_name: b}}'))).toMatchObject({
      kind: 'unsupported',
      hint: "not_null gives 'column_name' both in 'arguments' and beside it: dbt takes the one in 'arguments' and drops the other without a word; put every argument in 'arguments'",
      key: ['not_null', 'column_name'],
    });
    for (const value of ['5', '""', 'null', '[a, b]'])
      expect(testSpec(entry(`not_null: {column_name: ${value}}`))).toEqual({
        kind: 'unsupported',
        label: 'not_null',
        hint: `not_null takes text for 'column_name': a column, or an SQL expression such as "order_id || '-' || customer_id"`,
        key: ['not_null', 'column_name'],
      });
  });

  it("regression: a column_name on a column's test, or none on a model's, is unsupported, saying what dbt would test", () => {
    expect(testSpecOn(testSpec(entry('not_null: {column_name: updated_at}')), 'order_date')).toEqual({
      kind: 'unsupported',
      label: 'not_null',
      hint: "not_null is declared on the column 'order_date' and gives 'column_name' too: dbt tests the column and drops 'updated_at' without a word; move the test to the data_tests of the model or source table, or drop 'column_name'",
      key: ['not_null', 'column_name'],
    });
    expect(
      testSpecOn(testSpec(entry('unique: {arguments: {column_name: updated_at}}')), 'order_date'),
    ).toEqual({
      kind: 'unsupported',
      label: 'unique',
      hint: "unique is declared on the column 'order_date' and gives 'column_name' in 'arguments' too: dbt tests 'updated_at' instead of the column without a word; move the test to the data_tests of the model or source table, or drop 'column_name'",
      key: ['unique', 'arguments', 'column_name'],
    });
    expect(testSpecOn(testSpec(entry('not_null')), undefined)).toEqual({
      kind: 'unsupported',
      label: 'not_null',
      hint: "not_null in the data_tests of a model or source table needs 'column_name', the column or SQL expression it tests: only a column's tests get it from their column",
    });
    expect(testSpecOn(testSpec(entry('not_null')), 'order_id')).toEqual({ kind: 'not_null' });
    expect(testSpecOn(testSpec(entry('not_null: {column_name: order_id}')), undefined)).toMatchObject({
      kind: 'not_null',
    });
  });

  it('leaves a test of another name without a hint: planning names the one it is close to', () => {
    expect(testSpec(entry('uniqe'))).toEqual({ kind: 'unsupported', label: 'uniqe' });
    expect(testSpec(entry('expression_is_true: {expression: x}'))).toEqual({
      kind: 'unsupported',
      label: 'expression_is_true',
    });
  });
});
