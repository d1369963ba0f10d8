import type { TestSpec } from './properties.js';

/** A plain identifier: what the check accepts as a model, source, table or column name. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function quoteLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** Where the harness builds models: one schema, so ref() is `"main"."<model>"`. */
export const MODEL_SCHEMA = 'main';

export function modelRelation(name: string): string {
  return `${quoteIdentifier(MODEL_SCHEMA)}.${quoteIdentifier(name)}`;
}

export function sourceRelation(schema: string, identifier: string): string {
  return `${quoteIdentifier(schema)}.${quoteIdentifier(identifier)}`;
}

/** What a generic test tests: a column by its name, or the SQL a `column_name:` gives. */
export interface TestedValue {
  /** The value as SQL. */
  readonly sql: string;
  /** What the failing rows call it: the column, or the expression as written. */
  readonly label: string;
}

export function testedColumn(name: string): TestedValue {
  return { sql: quoteIdentifier(name), label: name };
}

/**
 * A `column_name:` as dbt uses it: pasted into the query as written, so a
 * column there is resolved as SQL resolves it. Kept on lines of its own,
 * so that a `--` comment at its end ends there.
 */
export function testedExpression(text: string): TestedValue {
  return { sql: `(\n${text}\n)`, label: text };
}

const UNQUOTED_LITERAL = /^(?:-?[0-9]+(?:\.[0-9]+)?|true|false)$/i;

/**
 * The query whose single count is the number of failing rows, with dbt's
 * semantics: NULL passes unique, relationships and accepted_values (dbt's
 * generic tests filter NULLs the same way). `undefined` for a test the
 * check cannot express safely (an unquoted accepted value that is not a
 * number or boolean).
 */
export function testQuery(
  spec: TestSpec,
  relation: string,
  tested: TestedValue,
  to?: string,
): string | undefined {
  const col = tested.sql;
  switch (spec.kind) {
    case 'not_null':
      return `select count(*) from ${relation} where ${col} is null`;
    case 'unique':
      return `select count(*) from (select ${col} from ${relation} where ${col} is not null group by ${col} having count(*) > 1) as duplicated`;
    case 'relationships': {
      if (to === undefined) return undefined;
      const field = quoteIdentifier(spec.field);
      return `select count(*) from (select ${col} as child from ${relation} where ${col} is not null) as c left join (select ${field} as parent from ${to}) as p on c.child = p.parent where p.parent is null`;
    }
    case 'accepted_values': {
      if (!spec.quote && !spec.values.every((value) => UNQUOTED_LITERAL.test(value))) return undefined;
      const values = spec.values.map((value) => (spec.quote ? quoteLiteral(value) : value));
      if (values.length === 0) return `select count(*) from ${relation} where ${col} is not null`;
      return `select count(*) from ${relation} where ${col} is not null and ${col} not in (${values.join(', ')})`;
    }
    case 'unsupported':
      return undefined;
  }
}

/**
 * The failing rows a test's count is about, in the shape dbt stores them
 * (`store_failures`): the whole row for not_null, the value and how often it
 * occurs for unique and accepted_values, the orphan value for relationships.
 * Shown (at most a few) in the finding: they are rows of the user's own
 * fixtures. `undefined` when testQuery is.
 */
export function failingRowsQuery(
  spec: TestSpec,
  relation: string,
  tested: TestedValue,
  limit: number,
  to?: string,
): string | undefined {
  if (testQuery(spec, relation, tested, to) === undefined) return undefined;
  const col = tested.sql;
  const shown = quoteIdentifier(tested.label);
  switch (spec.kind) {
    case 'not_null':
      return `select * from ${relation} where ${col} is null limit ${limit}`;
    case 'unique':
      return `select ${col} as ${shown}, count(*) as n_records from ${relation} where ${col} is not null group by ${col} having count(*) > 1 order by 1 limit ${limit}`;
    case 'relationships': {
      const field = quoteIdentifier(spec.field);
      return `select c.child as ${shown} from (select ${col} as child from ${relation} where ${col} is not null) as c left join (select ${field} as parent from ${to}) as p on c.child = p.parent where p.parent is null order by 1 limit ${limit}`;
    }
    case 'accepted_values': {
      const values = spec.values.map((value) => (spec.quote ? quoteLiteral(value) : value));
      const filter = values.length === 0 ? '' : ` and ${col} not in (${values.join(', ')})`;
      return `select ${col} as ${shown}, count(*) as n_records from ${relation} where ${col} is not null${filter} group by ${col} order by 1 limit ${limit}`;
    }
    case 'unsupported':
      return undefined;
  }
}
