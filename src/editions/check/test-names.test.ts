import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  pyFloatRepr,
  pyFromNode,
  pyStrRepr,
  synthesizeTestNames,
  testArgumentParts,
  testIdentity,
} from './test-names.js';
import { parseYaml } from './yaml.js';

/**
 * dbt's name for one `data_tests:` entry, the way the planner forms it: the
 * entry read by the check's own YAML reader, its argument values as Python
 * writes them, then the name from the test, the target and those values.
 */
const named = (yaml: string, testType: string, target: string, column?: string) => {
  const parsed = parseYaml(yaml);
  if (!parsed.ok) throw new Error(`bad YAML in the test: ${yaml}`);
  return synthesizeTestNames(testType, target, testArgumentParts(pyFromNode(parsed.node), column));
};
const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

/*
 * Every expected name below follows the steps of dbt-core's
 * synthesize_generic_test_names (dbt/parser/generic_test_builders.py) and
 * TestBuilder, worked by hand in the comment above it:
 *   1. the arguments: those of the entry, `column_name` (the column the test
 *      is declared on), those under `arguments:` over them; configs,
 *      `config:`, `description:` left out;
 *   2. sorted by name (code point order), `model` skipped; a dict gives its
 *      values, a list its items, anything else itself, each through str();
 *   3. in each, every run of characters other than [0-9a-zA-Z_] becomes one
 *      `_`; joined with `__`;
 *   4. full = <test>_<target>_<joined>, where <test> is `source_<name>` on a
 *      source, prefixed `<package>_` for a package test, and <target> the
 *      model or `<source>_<table>`;
 *   5. when full has 64 characters or more, short = the first 30 of
 *      `<test>_<target>`, `_`, the MD5 hex of full; else short = full.
 * The same cases were also run through that function itself, with PyYAML
 * reading the same YAML, which gave these names.
 */
describe("dbt's generic test names", () => {
  it('names a column test from the test, the model and the column', () => {
    // args {column_name: order_id} → "order_id".
    expect(named('not_null', 'not_null', 'silver_orders', 'order_id')).toEqual({
      full: 'not_null_silver_orders_order_id',
      short: 'not_null_silver_orders_order_id',
    });
  });

  it("puts source_ before the test's name on a source, and the package before that", () => {
    // <test> = "source_" + "not_null"; <target> = "bronze" + "_" + "orders".
    expect(named('not_null', 'source_not_null', 'bronze_orders', 'order_id').full).toBe(
      'source_not_null_bronze_orders_order_id',
    );
    // sorted: column_name, inclusive, max_value, min_value → quantity, str(True) = "True",
    // str(1e+20) = "1e+20" → "1e_20", str(0) = "0"; <test> = "dbt_utils_" + "source_accepted_range".
    expect(
      named(
        'dbt_utils.accepted_range: {min_value: 0, max_value: 1.0e+20, inclusive: true}',
        'dbt_utils_source_accepted_range',
        'bronze_order_items',
        'quantity',
      ).full,
    ).toBe('dbt_utils_source_accepted_range_bronze_order_items_quantity__True__1e_20__0');
  });

  it('appends the argument values in the order of their names, quote as True or False', () => {
    // sorted: column_name, quote, values → "order_status", str(False) = "False", "placed", "shipped".
    expect(
      named(
        'accepted_values: {values: [placed, shipped], quote: false}',
        'accepted_values',
        'silver_orders',
        'order_status',
      ).full,
    ).toBe('accepted_values_silver_orders_order_status__False__placed__shipped');
    // sorted by code point: Zeta (Z is 0x5A), _u (0x5F), alpha, column_name, mapping (a dict: its values 1, b).
    expect(
      named('my_test: {mapping: {x: 1, y: b}, Zeta: z, _u: u, alpha: a}', 'my_test', 't', 'c').full,
    ).toBe('my_test_t_z__u__a__c__1__b');
  });

  it("writes relationships' to: as it is written, ref('…') included", () => {
    // sorted: column_name, field, to → "customer_id", "customer_id", "ref('silver_customers')" → "ref_silver_customers_".
    expect(
      named(
        "relationships: {to: ref('silver_customers'), field: customer_id}",
        'relationships',
        'silver_orders',
        'customer_id',
      ).full,
    ).toBe('relationships_silver_orders_customer_id__customer_id__ref_silver_customers_');
    // "source('bronze', 'customers')" → "source_bronze_customers_".
    expect(
      named(
        `relationships: {to: "source('bronze', 'customers')", field: customer_id}`,
        'source_relationships',
        'bronze_orders',
        'customer_id',
      ).full,
    ).toBe('source_relationships_bronze_orders_customer_id__customer_id__source_bronze_customers_');
  });

  it('reads arguments: like arguments beside it, and leaves configs and description out', () => {
    // args {column_name: c, values: [a]}: config and description are not arguments.
    expect(
      named(
        'accepted_values: {arguments: {values: [a]}, config: {severity: warn}, description: x}',
        'accepted_values',
        't',
        'c',
      ).full,
    ).toBe('accepted_values_t_c__a');
    // The test_name: form; where is a config: args {column_name: c, quote: true, values: [a]}.
    expect(
      named(
        '{test_name: accepted_values, arguments: {values: [a], quote: true}, where: x > 1}',
        'accepted_values',
        't',
        'c',
      ).full,
    ).toBe('accepted_values_t_c__True__a');
  });

  it('names a model-level test from its arguments alone, with a trailing _ when it has none', () => {
    // args {expression: "amount > 0"} → "amount_0".
    expect(
      named(
        'dbt_utils.expression_is_true: {expression: amount > 0}',
        'dbt_utils_expression_is_true',
        'orders',
      ).full,
    ).toBe('dbt_utils_expression_is_true_orders_amount_0');
    // No arguments: the joined part is empty, the _ before it stays.
    expect(named('my_check', 'my_check', 'orders').full).toBe('my_check_orders_');
  });

  it("writes a value inside a list or dict as Python's repr, numbers as PyYAML reads them", () => {
    // values' items: str({'a': 1}) = "{'a': 1}" → "_a_1_"; str(['x', "it's"]) → "_x_it_s_";
    // None; 1.0; 1e-05 (repr of 0.00001) → "1e_05"; "a<tab>b" (an item itself, not in a repr) → "a_b".
    expect(
      named('my_test: {values: [{a: 1}, [x, "it\'s"], null, 1.0, 0.00001, "a\\tb"]}', 'my_test', 't', 'c')
        .full,
    ).toBe('my_test_t_c___a_1____x_it_s___None__1_0__1e_05__a_b');
    // n: -0.0; 017 is octal to PyYAML (15); 0x1F is 31; 1e3 and 1.5e3 are text to PyYAML (no dot,
    // no exponent sign); a big int stays exact. values: [['a<tab>b', 'q"uote', "it's"]] → repr
    // "['a\\tb', 'q\"uote', \"it's\"]" → "_a_tb_q_uote_it_s_".
    expect(
      named(
        'my_test: {values: [["a\\tb", \'q"uote\', "it\'s"]], n: [-0.0, 017, 0x1F, 1e3, 1.5e3, 123456789012345678901]}',
        'my_test',
        't',
        'c',
      ).full,
    ).toBe('my_test_t_c___0_0__15__31__1e3__1_5e3__123456789012345678901___a_tb_q_uote_it_s_');
    expect(
      named('my_test: {values: [0.1, 100.0, 1.0e+16, 12345678901234567.0, .5, -2.50]}', 'my_test', 't', 'c')
        .full,
    ).toBe('my_test_t_c__0_1__100_0__1e_16__1_2345678901234568e_16__0_5___2_5');
  });

  it('shortens a name of 64 characters or more to 30 of its test and target and the MD5 of the full name', () => {
    const under = `accepted_values_t_c__${'x'.repeat(42)}`;
    const over = `accepted_values_t_c__${'x'.repeat(43)}`;
    expect(under).toHaveLength(63);
    expect(named(`accepted_values: {values: [${'x'.repeat(42)}]}`, 'accepted_values', 't', 'c')).toEqual({
      full: under,
      short: under,
    });
    // "accepted_values_t" is shorter than 30: all of it is kept.
    expect(named(`accepted_values: {values: [${'x'.repeat(43)}]}`, 'accepted_values', 't', 'c')).toEqual({
      full: over,
      short: 'accepted_values_t_925e7cfa618f9e26df224d711e666767',
    });
    expect(md5(over)).toBe('925e7cfa618f9e26df224d711e666767');
    // "relationships_silver_order_items" has 32 characters: the first 30 are kept.
    const full = 'relationships_silver_order_items_product_id__product_id__ref_silver_products_';
    expect(
      named(
        "relationships: {to: ref('silver_products'), field: product_id}",
        'relationships',
        'silver_order_items',
        'product_id',
      ),
    ).toEqual({ full, short: 'relationships_silver_order_ite_381905557feb3c8368bb254c0992c1b7' });
    expect(md5(full)).toBe('381905557feb3c8368bb254c0992c1b7');
  });
});

describe('what tells two generic tests of one name apart', () => {
  // dbt-core hashes the name with repr() of the test's metadata, each leaf through str(), into its id.
  const identity = (yaml: string, column = 'order_status') => {
    const parsed = parseYaml(yaml);
    if (!parsed.ok) throw new Error(`bad YAML in the test: ${yaml}`);
    return testIdentity(pyFromNode(parsed.node), column);
  };

  it('is the same whatever the form, the configs, the description or a value str() writes alike', () => {
    const plain = identity('accepted_values: {values: [1, b]}');
    expect(identity("accepted_values: {arguments: {values: ['1', b]}, config: {severity: warn}}")).toBe(
      plain,
    );
    expect(identity('{test_name: accepted_values, values: [1, b], description: d, where: x}')).toBe(plain);
  });

  it('differs with the test, an argument, the column, and is none for a test set enabled: false', () => {
    const plain = identity('accepted_values: {values: [a, b]}');
    expect(identity('accepted_values: {values: [b, a]}')).not.toBe(plain);
    expect(identity('accepted_values: {values: [a, b], quote: false}')).not.toBe(plain);
    expect(identity('accepted_values: {values: [a, b]}', 'order_id')).not.toBe(plain);
    expect(identity('not_null', 'x')).not.toBe(identity('unique', 'x'));
    expect(identity('accepted_values: {values: [a, b], config: {enabled: false}}')).toBeUndefined();
    expect(identity('accepted_values: {values: [a, b], enabled: false}')).toBeUndefined();
  });
});

describe("a test's own column_name (a model's or source table's test)", () => {
  it('names the test from it, every run of characters other than letters, digits and _ made one _', () => {
    // args {column_name: "order_id || '-' || customer_id"} → "order_id_customer_id".
    expect(
      named(`unique: {column_name: "order_id || '-' || customer_id"}`, 'unique', 'silver_orders').full,
    ).toBe('unique_silver_orders_order_id_customer_id');
    // Under arguments: in the test_name: form, on a source: "trim(order_id)" → "trim_order_id_".
    expect(
      named(
        '{test_name: not_null, arguments: {column_name: "trim(order_id)"}}',
        'source_not_null',
        'bronze_orders',
      ).full,
    ).toBe('source_not_null_bronze_orders_trim_order_id_');
    // Beside arguments: (dbt reads it there too); sorted: column_name, field, to.
    expect(
      named(
        "relationships: {column_name: customer_id, arguments: {to: ref('silver_customers'), field: customer_id}}",
        'relationships',
        'silver_orders',
      ).full,
    ).toBe('relationships_silver_orders_customer_id__customer_id__ref_silver_customers_');
  });

  it('on a column: the column wins over one beside the arguments, one under arguments: over the column', () => {
    // dbt sets column_name to the column after reading the entry, then merges arguments: over it.
    expect(named('not_null: {column_name: updated_at}', 'not_null', 'silver_orders', 'order_date').full).toBe(
      'not_null_silver_orders_order_date',
    );
    expect(
      named('unique: {arguments: {column_name: updated_at}}', 'unique', 'silver_orders', 'order_date').full,
    ).toBe('unique_silver_orders_updated_at');
  });

  it("is one test with the same test on the column of that name, as dbt's id compares column_name", () => {
    const of = (yaml: string, column?: string) => {
      const parsed = parseYaml(yaml);
      if (!parsed.ok) throw new Error(`bad YAML in the test: ${yaml}`);
      return testIdentity(pyFromNode(parsed.node), column);
    };
    expect(of('not_null: {column_name: order_id}')).toBe(of('not_null', 'order_id'));
    expect(of('not_null: {arguments: {column_name: order_id}}')).toBe(of('not_null', 'order_id'));
    expect(of('not_null: {column_name: customer_id}')).not.toBe(of('not_null', 'order_id'));
    expect(of('unique: {column_name: "a || b"}')).not.toBe(of('unique: {column_name: "a||b"}'));
  });
});

describe("Python's str() and repr()", () => {
  it('writes floats as repr does: fixed from 1e-4 to 1e16, else with an exponent of two digits or more', () => {
    expect([1, 0.5, 100, 1e-4, 1e-5, 1e15, 1e16, 1.5e300, -2.5, 0, -0].map(pyFloatRepr)).toEqual([
      '1.0',
      '0.5',
      '100.0',
      '0.0001',
      '1e-05',
      '1000000000000000.0',
      '1e+16',
      '1.5e+300',
      '-2.5',
      '0.0',
      '-0.0',
    ]);
  });

  it('quotes text as repr does', () => {
    expect(["it's", 'a"b', 'a\'b"c', 'tab\there', 'nbsp\u00a0', 'back\\slash'].map(pyStrRepr)).toEqual([
      `"it's"`,
      `'a"b'`,
      `'a\\'b"c'`,
      `'tab\\there'`,
      `'nbsp\\xa0'`,
      `'back\\\\slash'`,
    ]);
  });
});
