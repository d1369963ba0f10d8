import { z } from 'zod';
import { PhysicalTypeSchema } from '../projection/physical-type-schema.js';

/**
 * The closed SQL representation a model projection carries. It is ours, not
 * DuckDB's parser JSON: only allowlisted constructs exist, relation references
 * are resolved to stable resource ids, and nothing positional (query
 * locations) or cosmetic survives. Keys are fixed per node; every optional
 * part is an explicit null so one query has one encoding.
 */

export type Qualifier =
  | { readonly scope: 'resource'; readonly id: string }
  | { readonly scope: 'alias'; readonly name: string }
  | { readonly scope: 'cte'; readonly name: string };

export type SqlLiteral =
  | { readonly node: 'literal'; readonly type: 'null' }
  | { readonly node: 'literal'; readonly type: 'integer' | 'decimal' | 'string'; readonly value: string };

export const COMPARE_OPS = [
  'eq',
  'ne',
  'lt',
  'lte',
  'gt',
  'gte',
  'is_distinct_from',
  'is_not_distinct_from',
] as const;
export type CompareOp = (typeof COMPARE_OPS)[number];

/** Functions the representation admits by name; everything else is refused. */
export const SQL_NAMED_FUNCTIONS = [
  // aggregates
  'count',
  'count_star',
  'sum',
  'avg',
  'min',
  'max',
  'median',
  'any_value',
  // scalar functions
  'abs',
  'round',
  'floor',
  'ceil',
  'lower',
  'upper',
  'trim',
  'ltrim',
  'rtrim',
  'length',
  'concat',
  'substring',
  'replace',
  'nullif',
  'greatest',
  'least',
  'date_trunc',
  'date_part',
  'year',
  'month',
  'day',
  'starts_with',
  'contains',
] as const;

/** Operators, represented as functions of the same node kind. */
const SQL_OPERATORS = [
  'add',
  'subtract',
  'multiply',
  'divide',
  'integer_divide',
  'modulo',
  'concat_op',
  'like',
  'not_like',
  'ilike',
  'not_ilike',
] as const;

/** Functions and operators the representation admits; everything else is refused. */
export const SQL_FUNCTIONS = [...SQL_NAMED_FUNCTIONS, ...SQL_OPERATORS] as const;
export type SqlFunction = (typeof SQL_FUNCTIONS)[number];

export type SqlExpr =
  | { readonly node: 'column'; readonly qualifier: Qualifier | null; readonly name: string }
  | { readonly node: 'star'; readonly qualifier: Qualifier | null }
  | SqlLiteral
  | { readonly node: 'compare'; readonly op: CompareOp; readonly left: SqlExpr; readonly right: SqlExpr }
  | { readonly node: 'logical'; readonly op: 'and' | 'or'; readonly args: readonly SqlExpr[] }
  | { readonly node: 'not'; readonly arg: SqlExpr }
  | { readonly node: 'is_null'; readonly negated: boolean; readonly arg: SqlExpr }
  | {
      readonly node: 'in';
      readonly negated: boolean;
      readonly arg: SqlExpr;
      readonly list: readonly SqlExpr[];
    }
  | { readonly node: 'between'; readonly arg: SqlExpr; readonly low: SqlExpr; readonly high: SqlExpr }
  | {
      readonly node: 'call';
      readonly name: SqlFunction;
      readonly args: readonly SqlExpr[];
      readonly distinct: boolean;
    }
  | { readonly node: 'cast'; readonly type: z.output<typeof PhysicalTypeSchema>; readonly arg: SqlExpr }
  | {
      readonly node: 'case';
      readonly branches: readonly { readonly when: SqlExpr; readonly result: SqlExpr }[];
      readonly else: SqlExpr | null;
    }
  | { readonly node: 'coalesce'; readonly args: readonly SqlExpr[] };

export interface SqlSelectItem {
  readonly expr: SqlExpr;
  readonly alias: string | null;
}

export interface SqlOrder {
  readonly expr: SqlExpr;
  readonly direction: 'default' | 'asc' | 'desc';
  readonly nulls: 'default' | 'first' | 'last';
}

export interface SqlCte {
  readonly name: string;
  readonly query: SqlQuery;
}

export type SqlFrom =
  | { readonly node: 'resource'; readonly id: string; readonly alias: string | null }
  | { readonly node: 'cte'; readonly name: string; readonly alias: string | null }
  | { readonly node: 'subquery'; readonly query: SqlQuery; readonly alias: string | null }
  | {
      readonly node: 'join';
      readonly type: 'inner' | 'left' | 'right' | 'full' | 'cross';
      readonly left: SqlFrom;
      readonly right: SqlFrom;
      readonly on: SqlExpr | null;
      readonly using: readonly string[];
    };

interface SqlQueryTail {
  readonly with: readonly SqlCte[];
  readonly order_by: readonly SqlOrder[];
  readonly limit: SqlExpr | null;
  readonly offset: SqlExpr | null;
}

export type SqlQuery =
  | (SqlQueryTail & {
      readonly node: 'select';
      readonly distinct: boolean;
      readonly select: readonly SqlSelectItem[];
      readonly from: SqlFrom | null;
      readonly where: SqlExpr | null;
      readonly group_by: readonly SqlExpr[];
      readonly having: SqlExpr | null;
    })
  | (SqlQueryTail & {
      readonly node: 'set';
      readonly op: 'union' | 'except' | 'intersect';
      readonly all: boolean;
      readonly left: SqlQuery;
      readonly right: SqlQuery;
    });

// ---------------------------------------------------------------------------
// The same representation as a closed schema: decoding validates every nested
// node against it (strict objects, no extra keys, no missing keys).

const Text = z.string().min(1).max(1024);

const QualifierSchema: z.ZodType<Qualifier> = z.discriminatedUnion('scope', [
  z.strictObject({ scope: z.literal('resource'), id: Text }),
  z.strictObject({ scope: z.literal('alias'), name: Text }),
  z.strictObject({ scope: z.literal('cte'), name: Text }),
]);

const Expr: z.ZodType<SqlExpr> = z.lazy(() => ExprSchema);

const ExprSchema: z.ZodType<SqlExpr> = z.union([
  z.strictObject({ node: z.literal('column'), qualifier: QualifierSchema.nullable(), name: Text }),
  z.strictObject({ node: z.literal('star'), qualifier: QualifierSchema.nullable() }),
  z.strictObject({ node: z.literal('literal'), type: z.literal('null') }),
  z.strictObject({
    node: z.literal('literal'),
    type: z.enum(['integer', 'decimal', 'string']),
    value: z.string().max(65_536),
  }),
  z.strictObject({ node: z.literal('compare'), op: z.enum(COMPARE_OPS), left: Expr, right: Expr }),
  z.strictObject({ node: z.literal('logical'), op: z.enum(['and', 'or']), args: z.array(Expr).min(2) }),
  z.strictObject({ node: z.literal('not'), arg: Expr }),
  z.strictObject({ node: z.literal('is_null'), negated: z.boolean(), arg: Expr }),
  z.strictObject({ node: z.literal('in'), negated: z.boolean(), arg: Expr, list: z.array(Expr).min(1) }),
  z.strictObject({ node: z.literal('between'), arg: Expr, low: Expr, high: Expr }),
  z.strictObject({
    node: z.literal('call'),
    name: z.enum(SQL_FUNCTIONS),
    args: z.array(Expr),
    distinct: z.boolean(),
  }),
  z.strictObject({ node: z.literal('cast'), type: PhysicalTypeSchema, arg: Expr }),
  z.strictObject({
    node: z.literal('case'),
    branches: z.array(z.strictObject({ when: Expr, result: Expr })).min(1),
    else: Expr.nullable(),
  }),
  z.strictObject({ node: z.literal('coalesce'), args: z.array(Expr).min(1) }),
]);

const Query: z.ZodType<SqlQuery> = z.lazy(() => QuerySchema);

const FromSchema: z.ZodType<SqlFrom> = z.lazy(() =>
  z.union([
    z.strictObject({ node: z.literal('resource'), id: Text, alias: Text.nullable() }),
    z.strictObject({ node: z.literal('cte'), name: Text, alias: Text.nullable() }),
    z.strictObject({ node: z.literal('subquery'), query: Query, alias: Text.nullable() }),
    z.strictObject({
      node: z.literal('join'),
      type: z.enum(['inner', 'left', 'right', 'full', 'cross']),
      left: FromSchema,
      right: FromSchema,
      on: Expr.nullable(),
      using: z.array(Text),
    }),
  ]),
);

const Tail = {
  with: z.array(z.strictObject({ name: Text, query: Query })),
  order_by: z.array(
    z.strictObject({
      expr: Expr,
      direction: z.enum(['default', 'asc', 'desc']),
      nulls: z.enum(['default', 'first', 'last']),
    }),
  ),
  limit: Expr.nullable(),
  offset: Expr.nullable(),
};

const QuerySchema: z.ZodType<SqlQuery> = z.union([
  z.strictObject({
    node: z.literal('select'),
    ...Tail,
    distinct: z.boolean(),
    select: z.array(z.strictObject({ expr: Expr, alias: Text.nullable() })).min(1),
    from: FromSchema.nullable(),
    where: Expr.nullable(),
    group_by: z.array(Expr),
    having: Expr.nullable(),
  }),
  z.strictObject({
    node: z.literal('set'),
    ...Tail,
    op: z.enum(['union', 'except', 'intersect']),
    all: z.boolean(),
    left: Query,
    right: Query,
  }),
]);

export const SqlQuerySchema: z.ZodType<SqlQuery> = Query;
