import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalize } from '../../core/json/index.js';
import { Refusal } from '../../core/refusal/index.js';
import { refuseContract } from '../authoring/refusals.js';
import { Faults } from '../projection/faults.js';
import type { SqlQuery } from './ast.js';
import { SqlQuerySchema } from './ast.js';
import { type ProjectedSql, projectDuckDbSql, type RelationResolver } from './from-duckdb.js';
import { createDuckDbSqlParser, type SqlParser } from './parser.js';

let parser: SqlParser;
beforeAll(async () => {
  parser = await createDuckDbSqlParser();
});
afterAll(() => parser.close());

/** The relations of a small project: names → stable ids (an id also resolves to itself). */
const RELATIONS: Readonly<Record<string, string>> = {
  orders: 'shop.source.orders',
  customers: 'shop.source.customers',
  'shop.source.orders': 'shop.source.orders',
  'shop.source.customers': 'shop.source.customers',
  c: 'shop.source.c',
  facts: 'shop.model.facts',
};

const resolver: RelationResolver = {
  resolveRelation(name) {
    const id = RELATIONS[name];
    if (id === undefined)
      throw refuseContract('contract_reference_unavailable', { role: 'model', field: 'sql' });
    return id;
  },
};

/** A resolver that also knows the declared columns of the two sources (for ambiguity). */
const COLUMNS: Readonly<Record<string, readonly string[]>> = {
  'shop.source.orders': ['order_id', 'customer_id', 'amount'],
  'shop.source.customers': ['customer_id', 'segment'],
};
const typed: RelationResolver = { ...resolver, relationColumns: (id) => COLUMNS[id] };

/** The refusal projecting `sql` (given its text, for places) throws; fails the test when it is accepted. */
async function refusalWithPlace(sql: string, relations: RelationResolver): Promise<Refusal> {
  const [json] = await parser.serialize([sql]);
  try {
    projectDuckDbSql(json, relations, sql);
  } catch (error: unknown) {
    if (error instanceof Refusal) return error;
    throw error;
  }
  throw new Error('expected the SQL to be refused');
}

async function project(sql: string): Promise<ProjectedSql> {
  const [json] = await parser.serialize([sql]);
  return projectDuckDbSql(json, resolver);
}

async function refusal(sql: string): Promise<string> {
  try {
    await project(sql);
  } catch (error: unknown) {
    if (error instanceof Refusal) return error.code;
    throw error;
  }
  return 'accepted';
}

const encoded = async (sql: string) => canonicalize((await project(sql)).query);

describe('accepted SQL corpus', () => {
  it.each([
    'select 1',
    'select order_id, amount from orders',
    'select o.order_id from orders o',
    'select orders.* from orders',
    'select * from orders',
    "select distinct status from orders where amount > 10 and status <> 'x' or amount is null",
    'select status, count(*), count(distinct customer_id), sum(amount), avg(amount), min(amount), max(amount) from orders group by status having count(*) > 1',
    'select status from orders order by status desc nulls last, 1 limit 10 offset 5',
    'select o.order_id, c.segment from orders o left join customers c on c.customer_id = o.customer_id',
    'select * from orders join customers using (customer_id)',
    'select * from orders o full outer join customers c on o.customer_id = c.customer_id',
    'select * from orders cross join customers',
    'select * from orders, customers',
    'with x as (select * from orders), y as (select * from x) select * from y',
    'select * from (select order_id from orders) as sub',
    'select order_id from orders union all select customer_id from customers',
    'select order_id from orders except select order_id from facts order by 1',
    'select cast(amount as decimal(12, 2)), amount::int, cast(ordered_at as date), cast(x as timestamp with time zone) from orders',
    "select case when amount > 100 then 'big' when amount > 10 then 'mid' else 'small' end from orders",
    "select coalesce(status, 'none'), nullif(status, ''), lower(status), upper(trim(status)) from orders",
    'select amount between 1 and 2, amount not between 3 and 4, amount in (1, 2), amount not in (3) from orders',
    "select status like 'a%', status not like 'b%', status ilike 'c%' from orders",
    "select -amount, amount + 1, amount - 1, amount * 2, amount / 2, amount // 2, amount % 2, status || 'x' from orders",
    "select date_trunc('month', ordered_at), year(ordered_at) from orders",
    'select 12345678901234567890123456789, -170141183460469231731687303715884105728, 1.50, 0.001, null',
    'select not (amount is not null) from orders',
    'select a is distinct from b, a is not distinct from b from orders',
    'select "shop.source.orders".order_id from "shop.source.orders"',
    'select ORDERS.order_id from Orders',
  ])('%s', async (sql) => {
    const projected = await project(sql);
    // The projection is itself a valid closed AST.
    expect(SqlQuerySchema.safeParse(projected.query).success).toBe(true);
  });

  it('keeps exact literals: integers beyond 2^64 and decimals with their scale', async () => {
    const query = (
      await project('select 12345678901234567890123456789 as big, 1.50 as price, -0.001 as tiny')
    ).query as Extract<SqlQuery, { node: 'select' }>;
    expect(query.select.map((item) => item.expr)).toEqual([
      { node: 'literal', type: 'integer', value: '12345678901234567890123456789' },
      { node: 'literal', type: 'decimal', value: '1.50' },
      // DuckDB folds the sign into the constant.
      { node: 'literal', type: 'decimal', value: '-0.001' },
    ]);
  });

  it('does not depend on layout, comments or keyword case', async () => {
    expect(await encoded('SELECT  o.order_id  -- the key\nFROM orders AS o')).toBe(
      await encoded('select o.order_id from orders o'),
    );
  });
});

describe('refused SQL corpus', () => {
  it.each([
    ['two statements', 'select 1; select 2', 'contract_sql_not_single_select'],
    ['no statement', '-- nothing', 'contract_sql_not_single_select'],
    ['an insert', 'insert into orders values (1)', 'contract_sql_not_single_select'],
    ['a syntax error', 'selec 1', 'contract_sql_parse_failed'],
    ['a table function', "select * from read_csv('x.csv')", 'contract_sql_unsupported'],
    ['a schema-qualified table', 'select * from main.orders', 'contract_sql_unsupported'],
    ['a window function', 'select row_number() over () from orders', 'contract_sql_unsupported'],
    ['a scalar subquery', 'select (select 1)', 'contract_sql_unsupported'],
    ['an IN subquery', 'select 1 from orders where order_id in (select 1)', 'contract_sql_unsupported'],
    ['EXISTS', 'select exists (select 1)', 'contract_sql_unsupported'],
    [
      'a recursive CTE',
      'with recursive r as (select 1 as n union all select n + 1 from r where n < 3) select * from r',
      'contract_sql_unsupported',
    ],
    ['a double literal', 'select 1.5e3', 'contract_sql_unsupported'],
    ['an unknown function', 'select md5(status) from orders', 'contract_sql_unsupported'],
    ['a function of another schema', 'select other.lower(status) from orders', 'contract_sql_unsupported'],
    [
      'an aggregate FILTER',
      'select count(*) filter (where amount > 1) from orders',
      'contract_sql_unsupported',
    ],
    ['an ordered aggregate', 'select sum(amount order by amount) from orders', 'contract_sql_unsupported'],
    ['TRY_CAST', 'select try_cast(status as int) from orders', 'contract_sql_unsupported'],
    [
      'a cast to a type outside the contract types',
      'select status::uuid from orders',
      'contract_sql_unsupported',
    ],
    ['GROUP BY ROLLUP', 'select status from orders group by rollup (status)', 'contract_sql_unsupported'],
    ['GROUP BY ALL', 'select status, count(*) from orders group by all', 'contract_sql_unsupported'],
    ['QUALIFY', 'select status from orders qualify true', 'contract_sql_unsupported'],
    ['DISTINCT ON', 'select distinct on (status) status from orders', 'contract_sql_unsupported'],
    ['SELECT * EXCLUDE', 'select * exclude (status) from orders', 'contract_sql_unsupported'],
    ['COLUMNS()', "select columns('a.*') from orders", 'contract_sql_unsupported'],
    ['TABLESAMPLE', 'select * from orders tablesample 10%', 'contract_sql_unsupported'],
    ['column aliases on a table', 'select * from orders as o(a, b)', 'contract_sql_unsupported'],
    ['a NATURAL join', 'select * from orders natural join customers', 'contract_sql_unsupported'],
    [
      'an ASOF join',
      'select * from orders asof join customers on orders.a >= customers.a',
      'contract_sql_unsupported',
    ],
    ['a POSITIONAL join', 'select * from orders positional join customers', 'contract_sql_unsupported'],
    [
      'a SEMI join',
      'select * from orders semi join customers using (customer_id)',
      'contract_sql_unsupported',
    ],
    ['a parameter', 'select $1', 'contract_sql_unsupported'],
    ['a struct literal', "select {'a': 1}", 'contract_sql_unsupported'],
    ['a list index', 'select status[1] from orders', 'contract_sql_unsupported'],
    ['COLLATE', 'select status collate nocase from orders', 'contract_sql_unsupported'],
    ['VALUES', 'select * from (values (1), (2)) v(x)', 'contract_sql_unsupported'],
    ['LIMIT with an expression', 'select 1 from orders limit 1 + 1', 'contract_sql_unsupported'],
    ['UNION BY NAME', 'select 1 as a union by name select 2 as a', 'contract_sql_unsupported'],
    ['a non-NFC string literal', "select 'cafe\u0301'", 'contract_text_invalid'],
    ['an unknown relation', 'select * from nowhere', 'contract_reference_unavailable'],
  ])('refuses %s', async (_label, sql, code) => {
    expect(await refusal(sql)).toBe(code);
  });
});

describe('regression: a refusal of the statement says what it found', () => {
  it.each([
    [
      'two statements',
      'select * from orders;\nselect * from orders',
      "the SQL holds 2 statements (each ';' ends one): keep one SELECT, and make each other query a model of its own",
    ],
    [
      'only a comment',
      '-- nothing yet',
      'the SQL holds no statement (only comments or white space): write the one SELECT the model is built from',
    ],
    [
      'an insert',
      'insert into orders values (1)',
      'this statement is not a query: model SQL is one SELECT (or WITH … SELECT) that the model is built from',
    ],
  ])('%s', async (_label, sql, hint) => {
    const error = await refusalWithPlace(sql, resolver);
    expect([error.code, error.hint]).toEqual(['contract_sql_not_single_select', hint]);
  });

  it("a schema-qualified table that is a source's location names the source to read instead", async () => {
    const locating: RelationResolver = {
      ...resolver,
      relationsAt: (dotted) =>
        dotted === 'raw.shop.orders' || dotted === 'shop.orders'
          ? [{ id: 'shop.source.orders', name: 'orders' }]
          : [],
    };
    for (const table of ['raw.shop.orders', 'shop.orders']) {
      const error = await refusalWithPlace(`select order_id from ${table}`, locating);
      expect(error.hint).toBe(
        `a schema-qualified table ${table} is not allowed (SQL line 1, column 22): ${table} is the location of shop.source.orders: FROM reads it by its name, orders (or its id in double quotes, "shop.source.orders")`,
      );
    }
  });
});

describe('a refused construct is named', () => {
  // The resolver of a project that has the id shop.source.orders.
  const knowing: RelationResolver = { ...resolver, isRelationId: (name) => RELATIONS[name] === name };
  const hintOf = async (sql: string) => {
    const error = await refusalWithPlace(sql, knowing);
    return [error.code, error.hint];
  };

  it.each([
    [
      'a window function',
      'select sum(amount) over (partition by status) from orders',
      'a window function (OVER …) is not allowed (SQL line 1, column 8)',
    ],
    [
      'a LATERAL subquery',
      'select * from orders o, lateral (select o.order_id) x',
      "a LATERAL subquery (it reads 'o' from the FROM around it) is not allowed (SQL line 1, column 41): join the subquery on a condition instead",
    ],
    [
      'a recursive CTE',
      'with recursive r as (select 1 as n union all select n + 1 from r where n < 3) select * from r',
      'a recursive CTE (WITH RECURSIVE) is not allowed: CTEs that read only the ones before them are allowed',
    ],
    [
      'a table function, without its arguments',
      "select * from read_csv('/srv/orders.csv')",
      'the table function read_csv is not allowed (SQL line 1, column 15): FROM reads sources and models of the project, by name or id',
    ],
    [
      'a schema-qualified table',
      'select * from main.orders',
      'a schema-qualified table main.orders is not allowed (SQL line 1, column 15): FROM reads sources and models of the project, not tables: name one by its name, or by its id in double quotes as one identifier',
    ],
    [
      'an id written unquoted',
      'select * from shop.source.orders',
      'a schema-qualified table shop.source.orders is not allowed (SQL line 1, column 15): shop.source.orders is the id of a resource of the project: quote it as one identifier, "shop.source.orders"',
    ],
    [
      'QUALIFY',
      'select status from orders qualify row_number() over () = 1',
      'QUALIFY is not allowed (SQL line 1, column 56): it filters on window functions, which model SQL does not have',
    ],
    [
      // regression: placed at the constant, with an example that cannot pass for the user's value.
      'a floating-point constant',
      'select order_id\nfrom orders\nwhere amount > 2e3',
      'a floating-point constant (an exponent, or more than 38 digits) is not allowed (SQL line 3, column 16): write it as a decimal literal of at most 38 digits, e.g. 1500 instead of 1.5e3',
    ],
    [
      'a constant of more than 38 digits',
      'select 0.1234567890123456789012345678901234567890 from orders',
      'a floating-point constant (an exponent, or more than 38 digits) is not allowed (SQL line 1, column 8): write it as a decimal literal of at most 38 digits, e.g. 1500 instead of 1.5e3',
    ],
    [
      'a misspelt function',
      'select substr(status, 1, 2) from orders',
      "the function substr is not allowed (SQL line 1, column 8): did you mean 'substring'?",
    ],
    [
      'TRY_CAST',
      'select try_cast(status as int) from orders',
      'TRY_CAST is not allowed (SQL line 1, column 8): CAST is allowed',
    ],
    [
      'a NATURAL join',
      'select * from orders natural join customers',
      'a NATURAL join is not allowed (SQL line 1, column 22): join with INNER, LEFT, RIGHT, FULL or CROSS JOIN and ON or USING',
    ],
    [
      'GROUP BY ALL',
      'select status, count(*) from orders group by all',
      'GROUP BY ALL is not allowed: name the grouped expressions',
    ],
  ])('regression: %s is named, with its place', async (_label, sql, hint) => {
    expect(await hintOf(sql)).toEqual(['contract_sql_unsupported', hint]);
  });

  it('regression: a parse error at a double-quoted word says double quotes make an identifier', async () => {
    expect(await hintOf('select "order_id from orders')).toEqual([
      'contract_sql_parse_failed',
      'duckdb: unterminated quoted identifier at or near ""order_id from orders" (SQL line 1, column 8): double quotes write an identifier (a name); write a string in single quotes (\'shipped\')',
    ]);
  });

  it('regression: a query too complex states the limit it crossed, where', async () => {
    const deep = `select ${'abs('.repeat(100)}1${')'.repeat(100)} from orders`;
    expect(await hintOf(deep)).toEqual([
      'contract_sql_too_complex',
      'the query nests subqueries, joins and expressions more than 96 levels deep (SQL line 1, column 392)',
    ]);
    const wide = `select ${Array.from({ length: 7000 }, () => '1+1').join(',')} from orders`;
    expect(await hintOf(wide)).toEqual([
      'contract_sql_too_complex',
      'the query has more than 20,000 parts (relations, subqueries, expressions): split it into models that read each other (SQL line 1, column 26673)',
    ]);
  });
});

describe('query scope', () => {
  const qualifierOf = async (sql: string) => {
    const query = (await project(sql)).query as Extract<SqlQuery, { node: 'select' }>;
    const expr = query.select[0]?.expr;
    if (expr?.node !== 'column' && expr?.node !== 'star') throw new Error('not a column');
    return expr.qualifier;
  };

  it('resolves an implicit relation qualifier to the stable resource id', async () => {
    expect(await qualifierOf('select orders.order_id from orders')).toEqual({
      scope: 'resource',
      id: 'shop.source.orders',
    });
    expect(await qualifierOf('select Orders.order_id from ORDERS')).toEqual({
      scope: 'resource',
      id: 'shop.source.orders',
    });
    expect(await qualifierOf('select orders.* from orders')).toEqual({
      scope: 'resource',
      id: 'shop.source.orders',
    });
  });

  it('gives the same identity whether a relation is written by name or by id', async () => {
    expect(await encoded('select order_id from "shop.source.orders"')).toBe(
      await encoded('select order_id from orders'),
    );
    // …but the implicit qualifier is the name written in the query.
    expect(await refusal('select orders.order_id from "shop.source.orders"')).toBe(
      'contract_sql_qualifier_unknown',
    );
  });

  it('keeps an explicit alias query-local, even when it is also the name of a resource', async () => {
    expect(await qualifierOf('select customers.order_id from orders as customers')).toEqual({
      scope: 'alias',
      name: 't1',
    });
    // The table's own name is no longer in scope once it has an alias.
    expect(await refusal('select orders.order_id from orders as o')).toBe('contract_sql_qualifier_unknown');
  });

  it('lets a CTE name shadow a resource of the same name', async () => {
    const projected = await project('with c as (select 1 as x) select c.x from c');
    const query = projected.query as Extract<SqlQuery, { node: 'select' }>;
    expect(query.from).toEqual({ node: 'cte', name: 'cte1', alias: null });
    expect(projected.relations).toEqual([]);
    expect(await qualifierOf('with c as (select 1 as x) select c.x from c')).toEqual({
      scope: 'cte',
      name: 'cte1',
    });
  });

  it('regression: a misspelt CTE name is said to be one (the hint named resources only)', async () => {
    const refused = await refusalWithPlace(
      'with delivered as (select * from orders) select * from delivred',
      resolver,
    );
    expect([refused.code, refused.hint]).toEqual([
      'contract_reference_unavailable',
      "did you mean the CTE 'delivered' of this query?",
    ]);
    // A name near no CTE keeps the resolver's own answer.
    expect(
      (await refusalWithPlace('with delivered as (select 1) select * from nowhere', resolver)).hint,
    ).toBeUndefined();
  });

  it('does not let a CTE see itself or a later CTE', async () => {
    // `c` inside its own definition is the resource named c, not the CTE.
    expect((await project('with c as (select * from c) select * from c')).relations).toEqual([
      'shop.source.c',
    ]);
    expect(await refusal('with a as (select * from b), b as (select 1) select * from a')).toBe(
      'contract_reference_unavailable',
    );
  });

  it('refuses ambiguous qualifiers', async () => {
    expect(await refusal('select orders.order_id from orders join orders on true')).toBe(
      'contract_sql_qualifier_ambiguous',
    );
    expect(await refusal('select o.x from orders o join customers o on true')).toBe(
      'contract_sql_qualifier_ambiguous',
    );
    expect(await refusal('select * from orders join customers orders on true')).toBe(
      'contract_sql_qualifier_ambiguous',
    );
  });

  it('refuses an unqualified column that two relations in scope could supply, as DuckDB does', async () => {
    const typedRefusal = async (sql: string) => {
      const [json] = await parser.serialize([sql]);
      try {
        projectDuckDbSql(json, typed);
      } catch (error: unknown) {
        if (error instanceof Refusal) return error.code;
        throw error;
      }
      return 'accepted';
    };
    const join = 'from customers join orders on orders.customer_id = customers.customer_id';
    expect(await typedRefusal(`select customer_id ${join}`)).toBe('contract_sql_qualifier_ambiguous');
    expect(await typedRefusal(`select segment ${join} where customer_id > 1`)).toBe(
      'contract_sql_qualifier_ambiguous',
    );
    // One supplier, a qualifier, a USING column, an output alias in ORDER BY: not ambiguous.
    expect(await typedRefusal(`select segment, amount ${join}`)).toBe('accepted');
    expect(await typedRefusal(`select orders.customer_id ${join}`)).toBe('accepted');
    expect(await typedRefusal('select customer_id from customers join orders using (customer_id)')).toBe(
      'accepted',
    );
    expect(await typedRefusal(`select orders.customer_id as customer_id ${join} order by customer_id`)).toBe(
      'accepted',
    );
    // Regression: a selected column keeps its name as an output column, and
    // ORDER BY binds to that first, as DuckDB does (it accepts this query).
    expect(await typedRefusal(`select customers.customer_id, segment ${join} order by customer_id`)).toBe(
      'accepted',
    );
    // Two output columns of that name, or none: DuckDB refuses it as ambiguous, and so do we.
    expect(
      await typedRefusal(`select orders.customer_id, customers.customer_id ${join} order by customer_id`),
    ).toBe('contract_sql_qualifier_ambiguous');
    expect(await typedRefusal(`select segment ${join} order by customer_id`)).toBe(
      'contract_sql_qualifier_ambiguous',
    );
    expect(await typedRefusal(`select customers.customer_id + 1 ${join} order by customer_id`)).toBe(
      'contract_sql_qualifier_ambiguous',
    );
    // A relation whose columns are not known (a * subquery) could supply anything.
    expect(
      await typedRefusal(
        'select segment from customers c join (select * from orders) o on o.customer_id = c.customer_id',
      ),
    ).toBe('contract_sql_qualifier_ambiguous');
    // The join condition sees the relations bound so far.
    expect(await typedRefusal('select segment from customers join orders on customer_id = 1')).toBe(
      'contract_sql_qualifier_ambiguous',
    );
  });

  it('regression: an ambiguous column is named with its SQL place and the relations that could supply it', async () => {
    const sql =
      'select segment,\n  customer_id\nfrom customers c join orders o on o.customer_id = c.customer_id';
    const caught = await refusalWithPlace(sql, typed);
    expect([caught.code, caught.hint, caught.within]).toEqual([
      'contract_sql_qualifier_ambiguous',
      "column 'customer_id' (SQL line 2, column 3) could come from c or o: qualify it (c.customer_id)",
      { line: 2, column: 3 },
    ]);
  });

  it('refuses qualifiers that name nothing in scope', async () => {
    expect(await refusal('select x.order_id from orders')).toBe('contract_sql_qualifier_unknown');
    expect(await refusal('select * from orders o, (select z.order_id from customers) s')).toBe(
      'contract_sql_qualifier_unknown',
    );
    expect(await refusal('select a.b.c from orders')).toBe('contract_sql_unsupported');
  });

  it.each([
    [
      'a one-letter qualifier beside a one-letter alias (no suggestion among short names)',
      'select o.order_id, o.status, x.customer_id\nfrom orders as o',
      "no relation 'x' in scope (SQL line 1, column 30); in scope: o",
    ],
    [
      'a misspelt relation name, on a later line',
      'select orders.order_id,\n  ordres.status\nfrom orders',
      "no relation 'ordres' in scope (SQL line 2, column 3); 'orders' is in scope, spelt nearly alike: write both the same, fixing whichever is misspelt (here, or in FROM or JOIN); in scope: orders",
    ],

    [
      'a qualified star',
      'select z.* from orders o join customers c using (customer_id)',
      "no relation 'z' in scope (SQL line 1, column 8); in scope: o, c",
    ],
  ])(
    'regression: an unknown qualifier is named with its SQL place and the names in scope: %s',
    async (_label, sql, hint) => {
      const caught = await refusalWithPlace(sql, resolver);
      expect([caught.code, caught.hint]).toEqual(['contract_sql_qualifier_unknown', hint]);
      // The same place, for the project to turn into the file's line and column.
      const [, line, column] = /SQL line (\d+), column (\d+)/.exec(hint) ?? [];
      expect(caught.within).toEqual({ line: Number(line), column: Number(column) });
    },
  );

  it('refuses LATERAL and implicit lateral references as unsupported, not as unknown qualifiers', async () => {
    for (const sql of [
      'select * from orders o, lateral (select o.order_id as id) s',
      'select * from orders o cross join lateral (select o.order_id as id) s',
      'select * from orders o, (select o.order_id) s',
      'select * from orders o join (select * from (select o.order_id) t) s on true',
    ]) {
      expect(await refusal(sql)).toBe('contract_sql_unsupported');
    }
  });

  it('refuses a PIVOT inside a query as unsupported, and a statement that is not a query as such', async () => {
    expect(await refusal('select * from (pivot orders on status using sum(amount))')).toBe(
      'contract_sql_unsupported',
    );
    expect(await refusal('pivot orders on status using sum(amount)')).toBe('contract_sql_unsupported');
    expect(await refusal('insert into orders values (1)')).toBe('contract_sql_not_single_select');
    expect(await refusal('create table t as select 1')).toBe('contract_sql_not_single_select');
  });

  it('lists the resources the query reads, sorted and deduplicated', async () => {
    expect(
      (
        await project(
          'select * from orders o join customers c using (customer_id) join orders o2 using (order_id)',
        )
      ).relations,
    ).toEqual(['shop.source.customers', 'shop.source.orders']);
  });
});

describe('query-local names', () => {
  it.each([
    [
      'a table alias',
      'select o.order_id, c.segment from orders o join customers c on c.customer_id = o.customer_id',
      'select ord.order_id, cust.segment from orders ord join customers cust on cust.customer_id = ord.customer_id',
    ],
    [
      'an alias written in another case',
      'select o.order_id from orders o',
      'select P.order_id from orders p',
    ],
    [
      'a CTE',
      'with recent as (select order_id from orders) select recent.order_id from recent',
      'with r as (select order_id from orders) select r.order_id from r',
    ],
    [
      'a CTE and its alias',
      'with recent as (select order_id from orders) select x.order_id from recent as x',
      'with r as (select order_id from orders) select y.order_id from r as y',
    ],
    [
      'a subquery alias',
      'select sub.order_id from (select o.order_id from orders o) as sub',
      'select s.order_id from (select q.order_id from orders q) as s',
    ],
    [
      'a CTE shadowed in a nested query',
      'with a as (select 1 as x) select * from (with a as (select 2 as x) select a.x from a) s, a',
      'with b as (select 1 as x) select * from (with c as (select 2 as x) select c.x from c) t, b',
    ],
    [
      'names swapped between two aliases',
      'select a.order_id from orders a join customers b using (customer_id)',
      'select b.order_id from orders b join customers a using (customer_id)',
    ],
  ])('keeps identity when %s is renamed', async (_case, before, after) => {
    expect(await encoded(after)).toBe(await encoded(before));
  });

  it.each([
    ['a select alias', 'select amount as total from orders', 'select amount as gross from orders'],
    [
      "a CTE's output column",
      'with r as (select amount as total from orders) select total from r',
      'with r as (select amount as gross from orders) select gross from r',
    ],
    [
      "a subquery's output column",
      'select s.total from (select amount as total from orders) s',
      'select s.gross from (select amount as gross from orders) s',
    ],
  ])('changes identity when %s (an output column) is renamed', async (_case, before, after) => {
    expect(await encoded(after)).not.toBe(await encoded(before));
  });

  it('numbers aliases and CTEs in order of definition', async () => {
    const query = (
      await project('with recent as (select o.order_id from orders o) select r.order_id from recent r')
    ).query;
    expect(query).toMatchObject({
      with: [
        {
          name: 'cte1',
          query: {
            from: { node: 'resource', id: 'shop.source.orders', alias: 't1' },
            select: [{ expr: { qualifier: { scope: 'alias', name: 't1' } } }],
          },
        },
      ],
      from: { node: 'cte', name: 'cte1', alias: 't2' },
      select: [{ expr: { qualifier: { scope: 'alias', name: 't2' } } }],
    });
  });

  it('still refuses a rename that binds one name twice', async () => {
    expect(await refusal('select o.order_id from orders o join customers c using (customer_id)')).toBe(
      'accepted',
    );
    expect(await refusal('select o.order_id from orders o join customers o using (customer_id)')).toBe(
      'contract_sql_qualifier_ambiguous',
    );
    expect(await refusal('with a as (select 1 as x), b as (select 2 as y) select * from a, b')).toBe(
      'accepted',
    );
    // DuckDB's parser itself refuses one WITH defining a name twice.
    expect(await refusal('with a as (select 1 as x), A as (select 2 as y) select * from a')).toBe(
      'contract_sql_parse_failed',
    );
    expect(await refusal('with a as (select 1 as x), b as (select 2 as y) select * from a p, b q')).toBe(
      'accepted',
    );
    expect(await refusal('with a as (select 1 as x), b as (select 2 as y) select * from a p, b p')).toBe(
      'contract_sql_qualifier_ambiguous',
    );
  });

  it('changes identity when a renamed CTE captures a relation the query read', async () => {
    const before = await project(
      'with r as (select order_id from orders) select * from (select customer_id from customers) s, r',
    );
    const after = await project(
      'with customers as (select order_id from orders) select * from (select customer_id from customers) s, customers',
    );
    expect(before.relations).toEqual(['shop.source.customers', 'shop.source.orders']);
    expect(after.relations).toEqual(['shop.source.orders']);
    expect(canonicalize(after.query)).not.toBe(canonicalize(before.query));
  });
});

describe('bounds', () => {
  it('refuses expressions nested deeper than the limit', async () => {
    expect(await refusal(`select ${'('.repeat(150)}1${')'.repeat(150)} + ${'1 + '.repeat(120)}1`)).toBe(
      'contract_sql_too_complex',
    );
  });

  it('refuses parser output that is not a parser answer', () => {
    expect(() => projectDuckDbSql(undefined, resolver)).toThrow(
      expect.objectContaining({ code: 'contract_sql_parse_failed' }),
    );
    expect(() =>
      projectDuckDbSql('{"error":false,"statements":[{"node":{"type":"SELECT_NODE"}}]}', resolver),
    ).toThrow(expect.objectContaining({ code: 'contract_sql_unsupported' }));
    expect(() => projectDuckDbSql('not json', resolver)).toThrow(
      expect.objectContaining({ code: 'contract_sql_unsupported' }),
    );
  });
});

describe('every fault of one query, with a fault sink', () => {
  const faultsOf = async (sql: string) => {
    const [json] = await parser.serialize([sql]);
    const faults = new Faults();
    projectDuckDbSql(json, typed, sql, faults);
    return faults.found.map((fault) => [fault.code, fault.hint]);
  };

  it('regression: each refused part is reported once, and the rest of the query is still checked', async () => {
    const sql =
      "select o.order_id, row_number() over () as n, md5(c.segment), y.x from read_csv('f') as o join customers c on c.customer_id = o.customer_id";
    expect(await faultsOf(sql)).toEqual([
      [
        'contract_sql_unsupported',
        'the table function read_csv is not allowed (SQL line 1, column 72): FROM reads sources and models of the project, by name or id',
      ],
      ['contract_sql_unsupported', 'a window function (OVER …) is not allowed (SQL line 1, column 20)'],
      [
        'contract_sql_unsupported',
        'the function md5 is not allowed (SQL line 1, column 47): the functions model SQL may call are listed in docs/contracts.md#model-sql',
      ],
      ['contract_sql_qualifier_unknown', "no relation 'y' in scope (SQL line 1, column 63); in scope: o, c"],
    ]);
  });

  it('regression: a CTE refused inside still names the CTE for the query that reads it', async () => {
    expect(
      await faultsOf('with r as (select status from orders group by all) select r.status, z.a from r'),
    ).toEqual([
      ['contract_sql_unsupported', 'GROUP BY ALL is not allowed: name the grouped expressions'],
      ['contract_sql_qualifier_unknown', "no relation 'z' in scope (SQL line 1, column 69); in scope: r"],
    ]);
  });

  it('stops at a query too complex: its parts would each say so again', async () => {
    const deep = `select ${'abs('.repeat(100)}1${')'.repeat(100)}, md5(status) from orders`;
    const [json] = await parser.serialize([deep]);
    expect(() => projectDuckDbSql(json, typed, deep, new Faults())).toThrow(
      expect.objectContaining({ code: 'contract_sql_too_complex' }),
    );
  });
});
