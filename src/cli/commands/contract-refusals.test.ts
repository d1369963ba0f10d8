import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import { expectGolden } from '../../../test/helpers/golden.js';
import { copyExample, type Doc, source, writeProjectTree } from '../../contracts/fixtures/resources.js';

/**
 * The refusals a contract project author sees, golden: each bad input is a
 * real project tree in a temporary folder, checked by the real CLI with the
 * folder given as the relative `retail`, in human form (stdout, stderr, exit
 * code) and with --json. Review a golden file as the user would read it:
 * docs/contracts.md#reading-an-error.
 */

const GOLDEN = fileURLToPath(new URL('../../contracts/testdata/refusals/', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'sealkit-contract-refusals-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Replaces text in a file of the example project; fails when the fixture no longer holds `from`. */
function edit(root: string, path: string, from: string, to: string): void {
  const file = join(root, path);
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`fixture drift: ${path} has no ${JSON.stringify(from)}`);
  writeFileSync(file, text.replace(from, to));
}

function write(root: string, path: string, content: string | Uint8Array): void {
  writeFileSync(join(root, path), content);
}

interface Case {
  readonly name: string;
  /** Builds the project at `root` (the folder `retail`, starting as a copy of the example project). */
  readonly build: (root: string) => void;
  /** Command words after `sealkit`; `retail` is the project folder. */
  readonly args?: readonly string[];
}

const ORDERS = 'sources/orders.yaml';
const FACTS = 'models/order_facts.yaml';
const SEMANTIC = 'semantic/orders.yaml';
const SALES = 'dashboards/sales_overview.yaml';

const manyFields = (): Doc =>
  source({
    id: 'retail.source.wide',
    name: 'wide',
    fields: Array.from({ length: 60 }, (_, i) => ({ name: `c${i}`, type: 'string', nulable: true })),
  });

const CASES: readonly Case[] = [
  {
    // The example of the issue: a typo in a Source field.
    name: 'unknown-key-typo',
    build: (root) =>
      edit(root, ORDERS, '    type: int64\n    nullable: false\n', '    type: int64\n    nulable: false\n'),
  },
  {
    name: 'wrong-type',
    build: (root) => edit(root, ORDERS, 'nullable: false', 'nullable: "no"'),
  },
  {
    name: 'missing-required-field',
    build: (root) =>
      edit(root, ORDERS, '  - name: customer_id\n    type: int64\n', '  - name: customer_id\n'),
  },
  {
    name: 'value-not-allowed',
    build: (root) => edit(root, ORDERS, 'classification: confidential', 'classification: secret'),
  },
  {
    name: 'identifier-invalid',
    build: (root) => edit(root, ORDERS, 'id: retail.source.orders', 'id: Retail.Orders'),
  },
  {
    name: 'duplicate-key',
    build: (root) => edit(root, ORDERS, 'name: orders\n', 'name: orders\nname: orders_again\n'),
  },
  {
    // A repeated key deep in a file: its key path, and the line of the first one.
    name: 'duplicate-key-nested',
    build: (root) =>
      edit(root, ORDERS, '    type: timestamp_tz\n', '    type: timestamp_tz\n    type: date\n'),
  },
  {
    // Every fault of one file at once: a misspelt required key (one error,
    // not also "missing"), a missing one, a mistyped value, a misspelt type
    // and a number a double does not hold, in file order.
    name: 'one-file-every-fault',
    build: (root) => {
      edit(root, ORDERS, 'id: retail.source.orders\n', '');
      edit(root, ORDERS, 'name: orders\n', 'nme: orders\n');
      edit(root, ORDERS, 'row_count: 1284311', 'row_count: many');
      edit(root, ORDERS, '  - name: currency\n    type: string\n', '  - name: currency\n    type: strin\n');
      edit(
        root,
        ORDERS,
        '    critical_data_element: true\n    authoritative',
        '    critical_data_element: 1.00000000000000000001\n    authoritative',
      );
    },
  },
  {
    name: 'tag',
    build: (root) => edit(root, ORDERS, 'name: orders\n', 'name: !!str orders\n'),
  },
  {
    name: 'alias',
    build: (root) => {
      edit(root, ORDERS, 'target:\n', 'target: &shop\n');
      write(root, ORDERS, `${readFileSync(join(root, ORDERS), 'utf8')}description_copy: *shop\n`);
    },
  },
  {
    name: 'byte-order-mark',
    build: (root) => write(root, ORDERS, `\ufeff${readFileSync(join(root, ORDERS), 'utf8')}`),
  },
  {
    name: 'not-utf8',
    build: (root) => {
      // A Latin-1 byte where UTF-8 is required (the space after "Orders").
      const bytes = readFileSync(join(root, ORDERS));
      bytes[bytes.indexOf('Orders as') + 6] = 0xe9;
      write(root, ORDERS, bytes);
    },
  },
  {
    name: 'multiple-documents',
    build: (root) => write(root, ORDERS, `${readFileSync(join(root, ORDERS), 'utf8')}---\nkind: Source\n`),
  },
  {
    name: 'empty-file',
    build: (root) => write(root, 'sources/empty.yaml', '# to do\n'),
  },
  {
    name: 'inexact-number',
    build: (root) => edit(root, ORDERS, 'row_count: 1284311', 'row_count: 12345678901234567891'),
  },
  {
    name: 'unknown-kind',
    build: (root) => edit(root, ORDERS, 'kind: Source', 'kind: Sorce'),
  },
  {
    name: 'missing-kind',
    build: (root) => edit(root, ORDERS, 'kind: Source\n', ''),
  },
  {
    name: 'dangling-reference',
    build: (root) => edit(root, SEMANTIC, 'model: retail.model.order_facts', 'model: order_fact'),
  },
  {
    name: 'reference-kind-mismatch',
    build: (root) => edit(root, SALES, 'semantic_model: orders_sm', 'semantic_model: order_facts'),
  },
  {
    name: 'model-sql-refused',
    build: (root) =>
      edit(root, FACTS, '    from orders as o\n', "    from read_csv('/srv/orders.csv') as o\n"),
  },
  {
    // regression: this was placed at the sql: key, with an example that read like the user's value.
    name: 'model-sql-float-constant',
    build: (root) =>
      edit(
        root,
        FACTS,
        "    where o.status in ('shipped', 'delivered')\n",
        "    where o.status in ('shipped', 'delivered') and o.amount > 2e3\n",
      ),
  },
  {
    name: 'model-sql-parse-error',
    build: (root) => edit(root, FACTS, '    from orders as o\n', '    from orders as o o\n'),
  },
  {
    name: 'model-sql-unknown-relation',
    build: (root) => edit(root, FACTS, '    from orders as o\n', '    from ordrs as o\n'),
  },
  {
    name: 'binding-missing',
    build: (root) => edit(root, SEMANTIC, 'field: customer_segment', 'field: customer_segmnt'),
  },
  {
    name: 'dashboard-unknown-measure',
    build: (root) => edit(root, SALES, 'measures: [revenue, order_count', 'measures: [revenu, order_count'),
  },
  {
    name: 'dashboard-unknown-key',
    build: (root) => edit(root, SALES, 'title: Sales overview', 'titel: Sales overview'),
  },
  {
    name: 'two-files-broken',
    build: (root) => {
      edit(root, ORDERS, '    type: int64\n    nullable: false\n', '    type: int64\n    nulable: false\n');
      edit(root, SALES, 'title: Sales overview', 'titel: Sales overview');
    },
  },
  {
    // A file that cannot be read blocks what refers to it, and only that.
    name: 'unreadable-blocks-dependents',
    build: (root) => edit(root, ORDERS, 'name: orders\n', 'name: [orders\n'),
  },
  {
    name: 'duplicate-id',
    build: (root) =>
      edit(root, 'sources/customers.yaml', 'id: retail.source.customers', 'id: retail.source.orders'),
  },
  {
    // `op: in` takes a list of `values`: the hint says so, not "allowed keys: …, value".
    name: 'condition-in-with-value',
    build: (root) =>
      edit(
        root,
        SEMANTIC,
        '      - dimension: status\n        op: eq\n        value: delivered\n',
        '      - { dimension: status, op: in, value: delivered }\n',
      ),
  },
  {
    // An operator outside the list: the list, and the nearest one.
    name: 'condition-operator-unknown',
    build: (root) => edit(root, SEMANTIC, '        op: gte\n', '        op: gt_e\n'),
  },
  {
    // A familiar other name for an operator: the operator it stands for.
    name: 'condition-operator-other-name',
    build: (root) => edit(root, SEMANTIC, '        op: eq\n', '        op: equals\n'),
  },
  {
    // At the value as written (`value`, not `values`), with indexes, and what to write.
    name: 'filter-value-type-mismatch',
    build: (root) => edit(root, SEMANTIC, '        value: delivered\n', '        value: 5\n'),
  },
  {
    // At the check's field, with indexes, and the nearest output field of the model.
    name: 'check-field-unknown',
    build: (root) =>
      edit(root, FACTS, '    field: order_status\n    values:', '    field: orderstatus\n    values:'),
  },
  {
    name: 'check-value-type-mismatch',
    build: (root) => edit(root, FACTS, 'values: [shipped, delivered]', 'values: [shipped, true]'),
  },
  {
    // The qualifier, where it is in the SQL, and the names in scope.
    name: 'model-sql-unknown-qualifier',
    build: (root) =>
      edit(root, FACTS, '    completed.status as order_status,\n', '    complete.status as order_status,\n'),
  },
  {
    // In a flow mapping the comma of decimal(12,2) ends the value: say to quote it, not "unknown key 2)".
    name: 'decimal-unquoted-in-flow-mapping',
    build: (root) =>
      edit(
        root,
        ORDERS,
        '  - name: amount\n    type: decimal(12,2)\n    nullable: false\n    critical_data_element: true\n',
        '  - { name: amount, type: decimal(12,2), nullable: false, critical_data_element: true }\n',
      ),
  },
  {
    // A misspelt key that chooses the shape of a check: the key meant, not the list of check types.
    name: 'check-type-key-misspelt',
    build: (root) => edit(root, FACTS, '  - type: unique\n', '  - tpye: unique\n'),
  },
  {
    // The operator left out: the key, the condition that lacks it and what it takes.
    name: 'condition-operator-missing',
    build: (root) => edit(root, SEMANTIC, '        op: gte\n', ''),
  },
  {
    // A refinement of the schema: reported at the type, by the schema step, with what is wrong.
    name: 'decimal-scale-over-precision',
    build: (root) => edit(root, ORDERS, 'type: decimal(12,2)', 'type: decimal(12,14)'),
  },
  {
    // Every fault found after the schema step, in two files: file order, then line order.
    name: 'every-fault-after-schema',
    build: (root) => {
      edit(
        root,
        FACTS,
        '    completed.ordered_at,\n',
        '    completed.ordered_at,\n    rank() over () as ranked,\n',
      );
      edit(root, FACTS, '    field: amount\n', '    field: amont\n');
      edit(root, FACTS, 'values: [shipped, delivered]', 'values: [shipped, true]');
      edit(root, SEMANTIC, 'field: customer_segment', 'field: customer_segmnt');
      edit(root, SEMANTIC, '        value: delivered\n', '        value: 5\n');
    },
  },
  {
    // More faults after the schema step than are listed: 50, then the count of the rest.
    name: 'many-faults-after-schema-counted',
    build: (root) =>
      edit(
        root,
        SALES,
        'measures: [revenue, order_count',
        `measures: [${Array.from({ length: 60 }, (_, i) => `m${i}`).join(', ')}`,
      ),
  },
  {
    // Nesting past the bound, far past it (the parser alone would run out of stack): where it is crossed.
    name: 'yaml-too-deep',
    build: (root) =>
      edit(root, ORDERS, 'tags: [retail, bronze]', `tags: ${'['.repeat(50_000)}${']'.repeat(50_000)}`),
  },
  {
    // Control characters in prose: at the character when it is written as it is, and which one.
    name: 'control-character-in-prose',
    build: (root) => {
      edit(root, ORDERS, 'description: Orders as captured', 'description: Orders \u001b[2J as captured');
      edit(root, SEMANTIC, 'label: Order status', 'label: "Order\\nstatus"');
    },
  },
  {
    // Entities, dimensions and measures share one namespace: the second name is pointed at.
    name: 'member-name-twice',
    build: (root) => edit(root, SEMANTIC, '  - name: order_count\n', '  - name: segment\n'),
  },
  {
    // A dashboard has no projection: the semantic models it reads are offered.
    name: 'project-resource-dashboard',
    build: () => undefined,
    args: ['contract', 'project', 'retail', '--resource', 'retail.dashboard.sales_overview'],
  },
  {
    name: 'project-out-exists',
    build: (root) => mkdirSync(join(root, '..', 'out1')),
    args: ['contract', 'project', 'retail', '--out', 'out1'],
  },
  {
    name: 'project-out-parent-missing',
    build: () => undefined,
    args: ['contract', 'project', 'retail', '--out', 'nope/x'],
  },
  {
    name: 'schemas-out-exists',
    build: (root) => mkdirSync(join(root, '..', 'schemas')),
    args: ['contract', 'schemas', '--out', 'schemas'],
  },
  {
    name: 'reference-cycle',
    build: (root) =>
      edit(
        root,
        FACTS,
        '    from orders as o\n',
        '    from orders as o\n    join order_facts as x on x.order_id = o.order_id\n',
      ),
  },
  {
    name: 'many-errors-counted',
    build: (root) => writeProjectTree(root, { 'sources/wide.yaml': manyFields() }),
  },
  {
    name: 'symlink-inside',
    build: (root) => symlinkSync('orders.yaml', join(root, 'sources', 'linked.yaml')),
  },
  {
    name: 'project-missing',
    build: (root) => rmSync(root, { recursive: true }),
  },
  {
    name: 'project-misspelt',
    build: () => undefined,
    args: ['contract', 'validate', 'retial'],
  },
  {
    name: 'project-resource-not-found',
    build: () => undefined,
    args: ['contract', 'project', 'retail', '--resource', 'retail.source.order'],
  },
  {
    // regression: a project-local name given to --resource got no hint.
    name: 'resource-name-not-id',
    build: () => undefined,
    args: ['contract', 'project', 'retail', '--resource', 'orders'],
  },
  {
    // regression: the hint offered ids unquoted, which SQL then refused as schema-qualified tables.
    name: 'model-sql-ambiguous-name',
    build: (root) =>
      write(
        root,
        'sources/customers_copy.yaml',
        readFileSync(join(root, 'sources', 'customers.yaml'), 'utf8').replace(
          'id: retail.source.customers',
          'id: retail.source.customers_copy',
        ),
      ),
  },
  {
    // regression: the message pointed at per-resource outcomes, which publish does not print.
    name: 'publish-project-invalid',
    build: (root) =>
      edit(root, ORDERS, '    type: int64\n    nullable: false\n', '    type: int64\n    nulable: false\n'),
    args: ['contract', 'publish', 'retail', '--dry-run'],
  },
  {
    name: 'project-refused-file',
    build: (root) =>
      edit(root, ORDERS, '    type: int64\n    nullable: false\n', '    type: int64\n    nulable: false\n'),
    args: ['contract', 'project', 'retail', '--resource', 'retail.semantic.orders'],
  },
];

function humanReport(args: readonly string[], run: ReturnType<typeof runCli>): string {
  return [
    `$ sealkit ${args.join(' ')}`,
    `exit ${run.status}`,
    '--- stdout',
    run.stdout.toString('utf8'),
    '--- stderr',
    run.stderr.toString('utf8'),
  ].join('\n');
}

describe('contract project refusals (golden)', () => {
  it('has at least 20 bad inputs', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(20);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  it.each(CASES)('$name', ({ name, build, args = ['contract', 'validate', 'retail'] }) => {
    const cwd = join(work, name);
    mkdirSync(cwd);
    const root = join(cwd, 'retail');
    copyExample(root);
    build(root);

    const human = runCli(args, { cwd });
    expect(human.status).toBe(2);
    // Human mode: refusals on stderr only, so `>/dev/null` never hides one.
    expect(human.stdout.toString('utf8')).not.toContain('error[');
    expect(human.stderr.toString('utf8')).toMatch(/^error\[[a-z0-9_]+\]: /);
    expectGolden(join(GOLDEN, `${name}.txt`), humanReport(args, human));

    const machine = runCli([...args, '--json'], { cwd });
    expect(machine.status).toBe(2);
    expect(machine.stderr.length).toBe(0);
    const text = machine.stdout.toString('utf8');
    expect(text.indexOf('\n')).toBe(text.length - 1);
    expectGolden(join(GOLDEN, `${name}.json`), `${JSON.stringify(JSON.parse(text), null, 2)}\n`);
  });
});
