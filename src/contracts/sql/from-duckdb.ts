import { isJsonObject, type JsonObject, type JsonValue, parseStrict } from '../../core/json/index.js';
import { didYouMean, guardRefusals, nearest, Refusal, type ValuePosition } from '../../core/refusal/index.js';
import { asciiLower } from '../authoring/identifiers.js';
import type { PhysicalType } from '../authoring/physical-type.js';
import { type ContractRefusalCode, refuseContract } from '../authoring/refusals.js';
import { requireNfc } from '../authoring/text.js';
import type { FaultSink } from '../projection/faults.js';
import {
  type CompareOp,
  type Qualifier,
  SQL_NAMED_FUNCTIONS,
  type SqlCte,
  type SqlExpr,
  type SqlFrom,
  type SqlFunction,
  type SqlOrder,
  type SqlQuery,
  type SqlSelectItem,
} from './ast.js';
import { canonicalLocalNames } from './local-names.js';

/**
 * Projects DuckDB's parser JSON (`json_serialize_sql`) into the closed SQL
 * representation. Every DuckDB node is checked against the exact key set this
 * version produces and every field it does not carry over must hold its
 * neutral value, so a construct this file does not know (or a parser upgrade
 * that adds one) is refused instead of silently dropped.
 */

/** Resolves a relation name of the SQL (ASCII-lowercased) to a Source or Model id, or refuses. */
export interface RelationResolver {
  /** `within`: where the name is written in the SQL, when DuckDB says, for a refusal to point at. */
  resolveRelation(name: string, within?: ValuePosition): string;
  /**
   * The declared field names of a resolved relation, when known: an
   * unqualified column that two relations in scope could supply is refused
   * as ambiguous. Without it, a resource may supply any column.
   */
  relationColumns?(id: string): readonly string[] | undefined;
  /**
   * Whether a dotted name is the id of a source or model of the project:
   * written unquoted it reads as a schema-qualified table, and the advice
   * is to quote it.
   */
  isRelationId?(name: string): boolean;
  /**
   * The sources whose `location` a dotted name writes (`catalog.schema.table`,
   * or its last two parts), for the advice to read them by name instead.
   */
  relationsAt?(dotted: string): readonly { readonly id: string; readonly name: string }[];
}

export interface ProjectedSql {
  readonly query: SqlQuery;
  /** Resource ids the query reads, sorted and deduplicated: the model's SQL dependencies. */
  readonly relations: readonly string[];
}

/** DuckDB nests deeply per SQL level; this bounds the document, `MAX_DEPTH` bounds our tree. */
const PARSER_JSON_MAX_DEPTH = 2000;
/** How deep subqueries, joins and expressions may nest inside each other (docs/contracts.md#limits). */
export const MAX_SQL_DEPTH = 96;
/** How many parts (relations, subqueries, expressions) one model's query may have (docs/contracts.md#limits). */
export const MAX_SQL_NODES = 20_000;
/** The longest string literal in model SQL, in characters. */
export const MAX_SQL_STRING = 65_536;

const ROLE = 'sql';
const FIELD = 'sql';

function fail(code: ContractRefusalCode, hint?: string, place?: SqlPlace): never {
  throw refuseContract(code, {
    role: ROLE,
    field: FIELD,
    ...(hint === undefined ? {} : { hint: `${hint}${place?.where ?? ''}` }),
    ...(place?.within === undefined ? {} : { within: place.within }),
  });
}

/** Where a node is in the model's SQL: ` (SQL line L, column C)` for the hint, and the position. */
interface SqlPlace {
  readonly where: string;
  readonly within?: ValuePosition;
}

/**
 * A construct outside the allowlisted SQL, named in words (`a window
 * function (OVER …)`, `the table function read_csv`) with its place when
 * DuckDB gives it, and the allowed way to write it when there is one. The
 * names come from sealkit's vocabulary and the operator's own SQL (a
 * function or table name), never a literal. Without a name — a form of
 * DuckDB's answer this sealkit does not know — the hint points to the list.
 */
function unsupported(construct?: string, place?: SqlPlace, advice?: string): never {
  const where = place?.where ?? '';
  throw refuseContract('contract_sql_unsupported', {
    role: ROLE,
    field: FIELD,
    hint:
      construct === undefined
        ? `the SQL uses a construct sealkit does not represent${where}; the allowed SQL is listed in docs/contracts.md#model-sql`
        : `${construct} is not allowed${where}${advice === undefined ? '' : `: ${advice}`}`,
    ...(place?.within === undefined ? {} : { within: place.within }),
  });
}

/**
 * A parse error as DuckDB words it (the first line of its message), and
 * where in the model's SQL, counted from the SQL's own first line: the SQL
 * is the operator's own file (docs/refusals.md#two-policies).
 */
function parseFailed(
  root: { readonly [key: string]: JsonValue | undefined },
  sql: string | undefined,
): never {
  const message = typeof root.error_message === 'string' ? root.error_message.split('\n')[0] : undefined;
  const offset = typeof root.position === 'string' ? Number(root.position) : Number.NaN;
  const where = sqlPlace(sql, offset);
  const within = sqlPosition(sql, offset);
  // Double quotes make an identifier in SQL; a string written in them is the usual cause.
  const quoted =
    message !== undefined && /quoted identifier|delimited identifier/i.test(message)
      ? ": double quotes write an identifier (a name); write a string in single quotes ('shipped')"
      : '';
  throw refuseContract('contract_sql_parse_failed', {
    role: ROLE,
    field: FIELD,
    ...(message === undefined ? {} : { hint: `duckdb: ${message}${where}${quoted}` }),
    ...(within === undefined ? {} : { within }),
  });
}

/**
 * ` (SQL line L, column C)` for a byte offset DuckDB gives into the SQL,
 * counted from the SQL's own first line; empty when the offset is unknown or
 * outside the text (DuckDB marks a synthesized node with an invalid one).
 */
function sqlPlace(sql: string | undefined, offset: number): string {
  const at = sqlPosition(sql, offset);
  return at === undefined ? '' : ` (SQL line ${at.line}, column ${at.column})`;
}

/**
 * The line and column (in characters) of a byte offset DuckDB gives into the
 * SQL; the refusal carries it as `within`, which the project turns into the
 * file's own line and column where the SQL is written as it is.
 */
function sqlPosition(sql: string | undefined, offset: number): ValuePosition | undefined {
  if (sql === undefined || !Number.isSafeInteger(offset) || offset < 0) return undefined;
  const bytes = Buffer.from(sql, 'utf8');
  if (offset >= bytes.length) return undefined;
  const before = bytes.subarray(0, offset).toString('utf8').split('\n');
  return { line: before.length, column: [...(before.at(-1) ?? '')].length + 1 };
}

/**
 * With `faults` (a project reporting every fault of a model), each
 * expression, FROM item and CTE is checked on its own: a refusal there is
 * kept and the rest of the query is still checked; the result is then not
 * for use. Without, the first refusal is thrown.
 */
export function projectDuckDbSql(
  parserJson: string | undefined,
  resolver: RelationResolver,
  sql?: string,
  faults?: FaultSink,
): ProjectedSql {
  if (parserJson === undefined) fail('contract_sql_parse_failed');
  return guardRefusals(
    () => {
      let document: JsonValue;
      try {
        document = parseStrict(Buffer.from(parserJson, 'utf8'), {
          maxBytes: 64 * 1024 * 1024,
          maxDepth: PARSER_JSON_MAX_DEPTH,
        });
      } catch {
        // Not a parser answer at all: nothing of it can be represented.
        return unsupported();
      }
      const root = object(document);
      if (root.error === true) {
        // "not implemented" is DuckDB's answer for statements other than SELECT.
        if (root.error_type === 'not implemented')
          fail(
            'contract_sql_not_single_select',
            'this statement is not a query: model SQL is one SELECT (or WITH … SELECT) that the model is built from',
          );
        // A query (e.g. with a dynamic PIVOT) that the parser cannot write as JSON.
        if (root.error_type === 'unsupported query')
          unsupported('a construct DuckDB cannot write out for sealkit (such as PIVOT or UNPIVOT)');
        parseFailed(root, sql);
      }
      const statements = root.statements;
      if (!Array.isArray(statements)) fail('contract_sql_not_single_select');
      if (statements.length === 0)
        fail(
          'contract_sql_not_single_select',
          'the SQL holds no statement (only comments or white space): write the one SELECT the model is built from',
        );
      if (statements.length > 1)
        fail(
          'contract_sql_not_single_select',
          `the SQL holds ${statements.length} statements (each ';' ends one): keep one SELECT, and make each other query a model of its own`,
        );
      keys(root, ['error', 'statements'], []);
      const converter = new Converter(resolver, sql, faults);
      const converted = converter.query(converter.statement(statements[0]), new Map(), 0);
      // A query with a refused part holds stand-ins, which have no canonical names.
      const query = converter.faulted ? converted : canonicalLocalNames(converted);
      return { query, relations: [...converter.relations].sort() };
    },
    () => refuseContract('contract_sql_unsupported', { role: ROLE, field: FIELD }),
  );
}

// --- JSON helpers -----------------------------------------------------------

function object(value: JsonValue | undefined): JsonObject {
  if (value === undefined || !isJsonObject(value)) return unsupported();
  return value;
}

function array(value: JsonValue | undefined): readonly JsonValue[] {
  if (!Array.isArray(value)) return unsupported();
  return value as readonly JsonValue[];
}

function text(value: JsonValue | undefined): string {
  if (typeof value !== 'string') return unsupported();
  return value;
}

function bool(value: JsonValue | undefined): boolean {
  if (typeof value !== 'boolean') return unsupported();
  return value;
}

function integer(value: JsonValue | undefined): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  return unsupported();
}

/** Requires exactly the keys this DuckDB version writes for a node (query_location is optional). */
function keys(node: JsonObject, required: readonly string[], optional: readonly string[]): void {
  for (const key of required) if (!(key in node)) unsupported();
  for (const key of Object.keys(node)) {
    if (key === 'query_location') continue;
    if (!required.includes(key) && !optional.includes(key)) unsupported();
  }
}

function isEmptyArray(value: JsonValue | undefined): boolean {
  return Array.isArray(value) && value.length === 0;
}

/** DuckDB writes HUGEINT values as {upper: int64, lower: uint64}. */
function hugeint(value: JsonValue | undefined): bigint {
  if (value !== undefined && isJsonObject(value)) {
    keys(value, ['upper', 'lower'], []);
    const lower = integer(value.lower);
    if (lower < 0n) unsupported();
    return (integer(value.upper) << 64n) + lower;
  }
  return integer(value);
}

/** The longest identifier model SQL may write, in characters. */
const MAX_IDENTIFIER = 1024;

function identifier(value: string): string {
  if (value.length === 0) unsupported('an empty quoted identifier ("")');
  if (value.length > MAX_IDENTIFIER) unsupported(`an identifier longer than ${MAX_IDENTIFIER} characters`);
  try {
    return requireNfc(value, { role: ROLE, field: FIELD });
  } catch (error: unknown) {
    if (!(error instanceof Refusal)) throw error;
    // Only a quoted identifier can hold what NFC or the control-character rule refuses.
    throw refuseContract('contract_text_invalid', {
      role: ROLE,
      field: FIELD,
      hint: 'a quoted identifier holds a control character or is not in Unicode NFC: retype it, or use an alias of plain letters',
    });
  }
}

// --- scope -------------------------------------------------------------------

/** Column names a relation supplies, folded; `null` when it may supply any (`*`, an unknown resource). */
type Columns = ReadonlySet<string> | null;

interface Binding {
  /** The name written in the SQL, folded for comparison. */
  readonly folded: string;
  readonly qualifier: Qualifier;
  readonly columns: Columns;
  /** Left by a refused FROM item: it answers its name, but supplies no column and clashes with nothing. */
  readonly refused?: true;
}

/**
 * What a refused FROM item binds in its scope, so that the qualifiers
 * naming it are not refused a second time: its alias or table name as
 * written, supplying any column; when neither is known (a refused join),
 * a binding that stands for any name.
 */
function refusedBinding(node: JsonObject, bindings: readonly Binding[]): Binding {
  const alias = typeof node.alias === 'string' ? node.alias : '';
  const table = node.type === 'BASE_TABLE' && typeof node.table_name === 'string' ? node.table_name : '';
  const name = alias !== '' ? alias : table;
  const folded =
    name === '' || bindings.some((binding) => binding.folded === asciiLower(name))
      ? REFUSED_RELATION
      : asciiLower(name);
  return {
    folded,
    qualifier: { scope: 'alias', name: name === '' ? REFUSED_RELATION : name },
    columns: null,
    refused: true,
  };
}

/**
 * The binding a refused FROM item leaves in its scope (no identifier holds
 * a control character, so none can be spelled so): with it, a qualifier
 * that may have named the refused item is not refused a second time.
 */
const REFUSED_RELATION = '\u0000';

interface VisibleCte {
  readonly name: string;
  readonly columns: Columns;
}

/** CTE names visible at a point of the query, folded → declared spelling and output columns. */
type CteScope = ReadonlyMap<string, VisibleCte>;

/** The output column names of a query: its select list's aliases and column names; `null` with a `*`. */
function outputColumns(query: SqlQuery): Columns {
  if (query.node === 'set') return outputColumns(query.left);
  const names = new Set<string>();
  for (const item of query.select) {
    if (item.expr.node === 'star') return null;
    if (item.alias !== null) names.add(asciiLower(item.alias));
    else if (item.expr.node === 'column') names.add(asciiLower(item.expr.name));
  }
  return names;
}

const COMPARISONS: Readonly<Record<string, CompareOp>> = {
  COMPARE_EQUAL: 'eq',
  COMPARE_NOTEQUAL: 'ne',
  COMPARE_LESSTHAN: 'lt',
  COMPARE_LESSTHANOREQUALTO: 'lte',
  COMPARE_GREATERTHAN: 'gt',
  COMPARE_GREATERTHANOREQUALTO: 'gte',
  COMPARE_DISTINCT_FROM: 'is_distinct_from',
  COMPARE_NOT_DISTINCT_FROM: 'is_not_distinct_from',
};

const OPERATOR_FUNCTIONS: Readonly<Record<string, SqlFunction>> = {
  '+': 'add',
  '-': 'subtract',
  '*': 'multiply',
  '/': 'divide',
  '//': 'integer_divide',
  '%': 'modulo',
  '||': 'concat_op',
  '~~': 'like',
  '!~~': 'not_like',
  '~~*': 'ilike',
  '!~~*': 'not_ilike',
};

const CONJUNCTIONS: Readonly<Record<string, 'and' | 'or'>> = {
  CONJUNCTION_AND: 'and',
  CONJUNCTION_OR: 'or',
};

/** Function names written as themselves, looked up to their typed name. */
const NAMED_FUNCTIONS: ReadonlyMap<string, SqlFunction> = new Map(
  SQL_NAMED_FUNCTIONS.map((name) => [name, name]),
);

const CAST_TYPES: Readonly<Record<string, PhysicalType>> = {
  BOOLEAN: { name: 'boolean' },
  TINYINT: { name: 'int8' },
  SMALLINT: { name: 'int16' },
  INTEGER: { name: 'int32' },
  BIGINT: { name: 'int64' },
  FLOAT: { name: 'float32' },
  DOUBLE: { name: 'float64' },
  VARCHAR: { name: 'string' },
  DATE: { name: 'date' },
  TIME: { name: 'time' },
  TIMESTAMP: { name: 'timestamp' },
  'TIMESTAMP WITH TIME ZONE': { name: 'timestamp_tz' },
  BLOB: { name: 'binary' },
};

const INTEGER_CONSTANTS = new Set([
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'HUGEINT',
  'UTINYINT',
  'USMALLINT',
  'UINTEGER',
  'UBIGINT',
]);

const EXPRESSION_BASE = ['class', 'type', 'alias'] as const;
const TABLE_BASE = ['type', 'alias', 'sample'] as const;
const SELECT_KEYS = [
  'type',
  'modifiers',
  'cte_map',
  'select_list',
  'from_table',
  'where_clause',
  'group_expressions',
  'group_sets',
  'aggregate_handling',
  'having',
  'sample',
  'qualify',
] as const;
const SET_KEYS = ['type', 'modifiers', 'cte_map', 'setop_type', 'left', 'right', 'setop_all'] as const;
const STAR_KEYS = [
  ...EXPRESSION_BASE,
  'relation_name',
  'exclude_list',
  'replace_list',
  'columns',
  'expr',
  'qualified_exclude_list',
  'rename_list',
] as const;
const FUNCTION_KEYS = [
  ...EXPRESSION_BASE,
  'function_name',
  'schema',
  'children',
  'filter',
  'order_bys',
  'distinct',
  'is_operator',
  'export_state',
  'catalog',
] as const;

const BASE_TABLE_KEYS = [
  ...TABLE_BASE,
  'schema_name',
  'table_name',
  'column_name_alias',
  'catalog_name',
  'at_clause',
] as const;
const JOIN_KEYS = [
  ...TABLE_BASE,
  'left',
  'right',
  'condition',
  'join_type',
  'ref_type',
  'using_columns',
  'delim_flipped',
  'duplicate_eliminated_columns',
] as const;

const SET_OPERATIONS: Readonly<Record<string, 'union' | 'except' | 'intersect'>> = {
  UNION: 'union',
  EXCEPT: 'except',
  INTERSECT: 'intersect',
};

/**
 * A plain GROUP BY (no GROUPING SETS, ROLLUP or CUBE): DuckDB writes it as
 * one grouping set holding every group expression, in order.
 */
function simpleGrouping(count: number, groupSets: readonly JsonValue[]): boolean {
  if (count === 0) return groupSets.length === 0;
  const [only] = groupSets;
  if (groupSets.length !== 1 || only === undefined) return false;
  const indexes = array(only);
  return indexes.length === count && indexes.every((index, position) => integer(index) === BigInt(position));
}

/** The modifiers of a query node; ORDER BY converts once the scope its expressions see is known. */
interface Modifiers {
  readonly distinct: boolean;
  readonly orderBy: (scope: ReadonlyMap<string, Qualifier>) => SqlOrder[];
  readonly limit: SqlExpr | null;
  readonly offset: SqlExpr | null;
}

type JoinKind = 'inner' | 'left' | 'right' | 'full' | 'cross';

const REGULAR_JOINS: Readonly<Record<string, Exclude<JoinKind, 'cross'>>> = {
  INNER: 'inner',
  LEFT: 'left',
  RIGHT: 'right',
  FULL: 'full',
  OUTER: 'full',
};

/** The joins the representation does not have, in words, by DuckDB's reference or join type. */
const OTHER_JOINS: Readonly<Record<string, string>> = {
  NATURAL: 'a NATURAL join',
  ASOF: 'an ASOF join',
  POSITIONAL: 'a POSITIONAL join',
  DEPENDENT: 'a LATERAL join',
  SEMI: 'a SEMI join',
  ANTI: 'an ANTI join',
  MARK: 'a MARK join',
  SINGLE: 'a SINGLE join',
};

/** DuckDB writes a CROSS JOIN as an INNER join of reference type CROSS. */
function joinKind(refType: string, joinType: string, place: SqlPlace): JoinKind {
  if (refType === 'CROSS' && joinType === 'INNER') return 'cross';
  const advice = 'join with INNER, LEFT, RIGHT, FULL or CROSS JOIN and ON or USING';
  if (refType !== 'REGULAR') return unsupported(OTHER_JOINS[refType] ?? `a ${refType} join`, place, advice);
  return REGULAR_JOINS[joinType] ?? unsupported(OTHER_JOINS[joinType] ?? `a ${joinType} join`, place, advice);
}

/** A relation bound under an alias written in the SQL. */
function aliasBinding(declaredAlias: string, columns: Columns): Binding {
  return { folded: asciiLower(declaredAlias), qualifier: { scope: 'alias', name: declaredAlias }, columns };
}

/** Stands for a refused query or CTE (the result is then not used). */
export const STAND_IN_QUERY: SqlQuery = {
  node: 'select',
  with: [],
  distinct: false,
  select: [],
  from: null,
  where: null,
  group_by: [],
  having: null,
  order_by: [],
  limit: null,
  offset: null,
};

/** A query node that is neither a SELECT nor a set operation, in words. */
function queryKind(node: JsonObject): never {
  if (node.type === 'RECURSIVE_CTE_NODE')
    return unsupported(
      'a recursive CTE (WITH RECURSIVE)',
      undefined,
      'CTEs that read only the ones before them are allowed',
    );
  return unsupported(
    typeof node.type === 'string' ? `a ${node.type.toLowerCase().replace(/_/g, ' ')}` : undefined,
  );
}

/** `the table function read_csv`: the name written in the operator's SQL, never its arguments. */
function tableFunctionName(node: JsonObject): string {
  const call = node.function !== undefined && isJsonObject(node.function) ? node.function : undefined;
  const name = typeof call?.function_name === 'string' ? call.function_name : undefined;
  return name === undefined || name === '' ? 'a table function' : `the table function ${name}`;
}

/** Expressions the representation does not have, by DuckDB's class. */
const EXPRESSION_KINDS: Readonly<Record<string, string>> = {
  WINDOW: 'a window function (OVER …)',
  SUBQUERY: 'a subquery expression (EXISTS, IN (SELECT …) or a scalar subquery)',
  PARAMETER: 'a parameter (? or $1)',
  COLLATE: 'COLLATE',
  LAMBDA: 'a lambda (x -> …)',
  POSITIONAL_REFERENCE: 'a positional reference (#1)',
  DEFAULT: 'DEFAULT',
};

/** Operators the representation does not have, by DuckDB's type. */
const OPERATOR_KINDS: Readonly<Record<string, string>> = {
  ARRAY_EXTRACT: 'a list or map subscript ([ ])',
  ARRAY_SLICE: 'a list slice ([a:b])',
  STRUCT_EXTRACT: 'a struct field access',
  ARRAY_CONSTRUCTOR: 'a list constructor',
  STRUCT_CONSTRUCTOR: 'a struct constructor',
  OPERATOR_TRY: 'TRY(…)',
  OPERATOR_UNPACK: 'UNPACK',
};

/** Constants other than integers, decimals, strings and NULL. */
const CONSTANT_KINDS: Readonly<Record<string, string>> = {
  BOOLEAN: 'a boolean constant (true or false)',
  INTERVAL: 'an INTERVAL constant',
  BLOB: 'a BLOB constant',
  STRUCT: 'a struct constant',
  LIST: 'a list constant',
  MAP: 'a map constant',
};

/** FROM items other than tables, subqueries and joins. */
const FROM_KINDS: Readonly<Record<string, string>> = {
  EXPRESSION_LIST: 'a VALUES list',
  PIVOT: 'PIVOT or UNPIVOT',
  SHOW_REF: 'SHOW or DESCRIBE',
  COLUMN_DATA: 'inline data',
  DELIM_GET: 'an internal relation',
};

/** Query modifiers other than DISTINCT, ORDER BY and LIMIT/OFFSET. */
const MODIFIERS: Readonly<Record<string, string>> = {
  LIMIT_PERCENT_MODIFIER: 'LIMIT … PERCENT',
};

/** `* EXCLUDE` and its kin: DuckDB's list, and the words for it. */
const STAR_LISTS: readonly (readonly [string, string])[] = [
  ['exclude_list', '* EXCLUDE'],
  ['qualified_exclude_list', '* EXCLUDE'],
  ['replace_list', '* REPLACE'],
  ['rename_list', '* RENAME'],
];

/** The SQL type names CAST takes, for the advice on one it does not. */
const CAST_TYPE_WORDS = `${[...Object.keys(CAST_TYPES), 'DECIMAL(P,S)'].join(', ')}`;

/** Where an expression node is converted: the relations in scope and its depth in the tree. */
interface ExprSite {
  readonly scope: ReadonlyMap<string, Qualifier>;
  readonly depth: number;
}

class Converter {
  readonly relations = new Set<string>();
  #nodes = 0;
  /**
   * Relation names bound by the FROM clauses around the subquery being
   * converted: a reference to one of them from inside is a lateral
   * (correlated) reference — DuckDB writes `LATERAL` and an implicit one
   * alike — which the closed representation does not have.
   */
  readonly #enclosing: ReadonlySet<string>[] = [];
  /** For each scope map: the relations bound in it, to tell which could supply an unqualified column. */
  readonly #suppliers = new WeakMap<
    ReadonlyMap<string, Qualifier>,
    { readonly bindings: readonly Binding[]; readonly merged: ReadonlySet<string> }
  >();

  /** Whether a part of the query was refused into the faults (the result then holds stand-ins). */
  faulted = false;

  constructor(
    private readonly resolver: RelationResolver,
    /** The SQL as written, to say where a qualifier is when DuckDB gives its place. */
    private readonly sql?: string,
    private readonly faults?: FaultSink,
  ) {}

  /**
   * One independent part of the query. With faults, a refusal there is kept
   * and `fallback` stands for the part, so the rest is still checked; a
   * query too complex stops at once (each part would say so again).
   */
  #part<T>(work: () => T, fallback: () => T): T {
    const faults = this.faults;
    if (faults === undefined) return work();
    let stop: Refusal | undefined;
    const done = faults.check(() => {
      try {
        return { value: work() };
      } catch (error: unknown) {
        if (error instanceof Refusal && error.code === 'contract_sql_too_complex') {
          stop = error;
          return undefined;
        }
        throw error;
      }
    });
    if (stop !== undefined) throw stop;
    if (done === undefined) {
      this.faulted = true;
      return fallback();
    }
    return done.value;
  }

  /** A construct refused on its own: kept with faults (the query goes on without it), else thrown. */
  #refuse(construct: string, place?: SqlPlace, advice?: string): void {
    this.#part(
      () => unsupported(construct, place, advice),
      () => undefined,
    );
  }

  #tick(depth: number, node?: JsonObject): void {
    this.#nodes += 1;
    if (depth > MAX_SQL_DEPTH) {
      fail(
        'contract_sql_too_complex',
        `the query nests subqueries, joins and expressions more than ${MAX_SQL_DEPTH} levels deep`,
        this.#place(node),
      );
    }
    if (this.#nodes > MAX_SQL_NODES) {
      fail(
        'contract_sql_too_complex',
        `the query has more than ${MAX_SQL_NODES.toLocaleString('en-US')} parts (relations, subqueries, expressions): split it into models that read each other`,
        this.#place(node),
      );
    }
  }

  /** Where DuckDB says a node is written (`query_location`), when it says. */
  #place(node: JsonObject | undefined): SqlPlace {
    const offset = typeof node?.query_location === 'number' ? node.query_location : Number.NaN;
    const within = sqlPosition(this.sql, offset);
    return { where: sqlPlace(this.sql, offset), ...(within === undefined ? {} : { within }) };
  }

  query(node: JsonObject, outer: CteScope, depth: number): SqlQuery {
    this.#tick(depth);
    const ctes = this.#ctes(object(node.cte_map), outer, depth);
    const scope = new Map(outer);
    for (const cte of ctes)
      scope.set(asciiLower(cte.name), { name: cte.name, columns: outputColumns(cte.query) });
    const modifiers = this.#modifiers(array(node.modifiers), depth);
    if (node.type === 'SET_OPERATION_NODE') return this.#setOperation(node, scope, ctes, modifiers, depth);
    if (node.type !== 'SELECT_NODE') queryKind(node);
    return this.#select(node, scope, ctes, modifiers, depth);
  }

  #setOperation(
    node: JsonObject,
    scope: CteScope,
    ctes: readonly SqlCte[],
    modifiers: Modifiers,
    depth: number,
  ): SqlQuery {
    keys(node, SET_KEYS, []);
    if (modifiers.distinct) unsupported('DISTINCT on a UNION, EXCEPT or INTERSECT');
    const written = text(node.setop_type);
    const op = SET_OPERATIONS[written];
    if (op === undefined) return unsupported(written.replace(/_/g, ' '));
    return {
      node: 'set',
      op,
      all: bool(node.setop_all),
      left: this.query(object(node.left), scope, depth + 1),
      right: this.query(object(node.right), scope, depth + 1),
      with: ctes,
      order_by: modifiers.orderBy(new Map()),
      limit: modifiers.limit,
      offset: modifiers.offset,
    };
  }

  #select(
    node: JsonObject,
    scope: CteScope,
    ctes: readonly SqlCte[],
    modifiers: Modifiers,
    depth: number,
  ): SqlQuery {
    keys(node, SELECT_KEYS, []);
    if (node.sample !== null) this.#refuse('USING SAMPLE');
    if (node.qualify !== null) {
      this.#refuse(
        'QUALIFY',
        this.#place(node.qualify !== undefined && isJsonObject(node.qualify) ? node.qualify : undefined),
        'it filters on window functions, which model SQL does not have',
      );
    }
    if (node.aggregate_handling !== 'STANDARD_HANDLING')
      this.#refuse('GROUP BY ALL', undefined, 'name the grouped expressions');

    const bindings: Binding[] = [];
    const from = this.#from(object(node.from_table), scope, bindings, depth + 1);
    const byName = this.#scope(bindings, this.#merged(from));
    const expr = (value: JsonValue | undefined) => this.#expr(object(value), byName, depth + 1);
    const optionalExpr = (value: JsonValue | undefined) => (value === null ? null : expr(value));

    const groupBy = array(node.group_expressions).map(expr);
    if (!simpleGrouping(groupBy.length, array(node.group_sets)))
      this.#refuse('GROUPING SETS, ROLLUP or CUBE', undefined, 'a plain GROUP BY is allowed');

    const select: SqlSelectItem[] = array(node.select_list).map((item) => {
      const itemNode = object(item);
      const alias = text(itemNode.alias);
      return {
        expr: this.#expr(itemNode, byName, depth + 1, true),
        alias: alias === '' ? null : identifier(alias),
      };
    });
    if (select.length === 0) unsupported('a SELECT without columns');
    return {
      node: 'select',
      with: ctes,
      distinct: modifiers.distinct,
      select,
      from,
      where: optionalExpr(node.where_clause),
      group_by: groupBy,
      having: optionalExpr(node.having),
      order_by: modifiers.orderBy(this.#orderScope(byName, select)),
      limit: modifiers.limit,
      offset: modifiers.offset,
    };
  }

  /**
   * ORDER BY may name an output column (DuckDB binds it to the select list
   * first), so such a name is never ambiguous there: an alias, or the name a
   * selected column keeps (`c.customer_id` is output as `customer_id`) when
   * no other output column has it. Two output columns of one name leave the
   * name to the relations, where DuckDB finds it ambiguous too.
   */
  #orderScope(byName: ReadonlyMap<string, Qualifier>, select: readonly SqlSelectItem[]) {
    const scope = new Map(byName);
    const suppliers = this.#suppliers.get(byName);
    if (suppliers !== undefined) {
      const aliases = select.flatMap((item) => (item.alias === null ? [] : [asciiLower(item.alias)]));
      const outputNames = select.flatMap((item) => {
        if (item.alias !== null) return [asciiLower(item.alias)];
        return item.expr.node === 'column' ? [asciiLower(item.expr.name)] : [];
      });
      const kept = select.flatMap((item) =>
        item.alias === null && item.expr.node === 'column' ? [asciiLower(item.expr.name)] : [],
      );
      const once = kept.filter((name) => outputNames.indexOf(name) === outputNames.lastIndexOf(name));
      this.#suppliers.set(scope, {
        ...suppliers,
        merged: new Set([...suppliers.merged, ...aliases, ...once]),
      });
    }
    return scope;
  }

  /** Columns a `USING` join merged into one: an unqualified reference to them is not ambiguous. */
  #merged(from: SqlFrom | null): ReadonlySet<string> {
    const out = new Set<string>();
    const visit = (node: SqlFrom | null) => {
      if (node?.node !== 'join') return;
      for (const column of node.using) out.add(asciiLower(column));
      visit(node.left);
      visit(node.right);
    };
    visit(from);
    return out;
  }

  #ctes(cteMap: JsonObject, outer: CteScope, depth: number): SqlCte[] {
    keys(cteMap, ['map'], []);
    const visible = new Map(outer);
    const declared = new Set<string>();
    const out: SqlCte[] = [];
    for (const entry of array(cteMap.map)) {
      const pair = object(entry);
      keys(pair, ['key', 'value'], []);
      const name = identifier(text(pair.key));
      const value = object(pair.value);
      keys(value, ['aliases', 'query', 'materialized', 'key_targets'], []);
      if (!isEmptyArray(value.aliases))
        this.#refuse(
          'column names after a CTE name (name(a, b) AS …)',
          undefined,
          'name the columns in its SELECT',
        );
      if (!isEmptyArray(value.key_targets)) this.#refuse('USING KEY on a CTE');
      if (value.materialized !== 'CTE_MATERIALIZE_DEFAULT')
        this.#refuse('MATERIALIZED or NOT MATERIALIZED on a CTE');
      const folded = asciiLower(name);
      if (declared.has(folded)) fail('contract_sql_qualifier_ambiguous');
      declared.add(folded);
      // Non-recursive: a CTE sees the CTEs declared before it, never itself.
      // A refused CTE stays visible, supplying any column, so what reads it is still checked.
      const query = this.#part<SqlQuery | null>(
        () => this.query(this.statement(value.query), visible, depth + 1),
        () => null,
      );
      out.push({ name, query: query ?? STAND_IN_QUERY });
      visible.set(folded, { name, columns: query === null ? null : outputColumns(query) });
    }
    return out;
  }

  statement(value: JsonValue | undefined): JsonObject {
    const wrapper = object(value);
    keys(wrapper, ['node', 'named_param_map'], []);
    if (!isEmptyArray(wrapper.named_param_map)) unsupported('a parameter (? or $name)');
    const node = object(wrapper.node);
    if (node.type !== 'SELECT_NODE' && node.type !== 'SET_OPERATION_NODE') queryKind(node);
    return node;
  }

  #modifiers(modifiers: readonly JsonValue[], depth: number): Modifiers {
    let distinct = false;
    let orders: readonly JsonValue[] = [];
    let limit: SqlExpr | null = null;
    let offset: SqlExpr | null = null;
    const seen = new Set<string>();
    for (const item of modifiers) {
      const modifier = object(item);
      const type = text(modifier.type);
      if (seen.has(type)) unsupported();
      seen.add(type);
      if (type === 'DISTINCT_MODIFIER') {
        keys(modifier, ['type', 'distinct_on_targets'], []);
        if (!isEmptyArray(modifier.distinct_on_targets))
          this.#refuse('DISTINCT ON', undefined, 'plain DISTINCT is allowed');
        distinct = true;
      } else if (type === 'ORDER_MODIFIER') {
        keys(modifier, ['type', 'orders'], []);
        orders = array(modifier.orders);
      } else if (type === 'LIMIT_MODIFIER') {
        keys(modifier, ['type', 'limit', 'offset'], []);
        limit = modifier.limit === null ? null : this.#countLiteral(object(modifier.limit), depth);
        offset = modifier.offset === null ? null : this.#countLiteral(object(modifier.offset), depth);
      } else {
        unsupported(MODIFIERS[type] ?? undefined);
      }
    }
    const orderBy = (scope: ReadonlyMap<string, Qualifier>): SqlOrder[] =>
      orders.map((entry) => {
        const order = object(entry);
        keys(order, ['type', 'null_order', 'expression'], []);
        const direction = { ORDER_DEFAULT: 'default', ASCENDING: 'asc', DESCENDING: 'desc' }[
          text(order.type)
        ];
        const nulls = {
          ORDER_DEFAULT: 'default',
          NULLS_FIRST: 'first',
          'NULLS FIRST': 'first',
          NULLS_LAST: 'last',
          'NULLS LAST': 'last',
        }[text(order.null_order)];
        if (direction === undefined || nulls === undefined) unsupported();
        return {
          expr: this.#expr(object(order.expression), scope, depth + 1),
          direction: direction as SqlOrder['direction'],
          nulls: nulls as SqlOrder['nulls'],
        };
      });
    return { distinct, orderBy, limit, offset };
  }

  /** LIMIT and OFFSET: non-negative integer constants only. */
  #countLiteral(node: JsonObject, depth: number): SqlExpr {
    const literal = this.#expr(node, new Map(), depth + 1);
    if (literal.node !== 'literal' || literal.type !== 'integer' || literal.value.startsWith('-'))
      unsupported('a LIMIT or OFFSET that is not a whole number of 0 or more', this.#place(node));
    return literal;
  }

  #from(node: JsonObject, ctes: CteScope, bindings: Binding[], depth: number): SqlFrom | null {
    return this.#part(
      () => this.#fromItem(node, ctes, bindings, depth),
      () => {
        bindings.push(refusedBinding(node, bindings));
        return { node: 'cte', name: REFUSED_RELATION, alias: null };
      },
    );
  }

  #fromItem(node: JsonObject, ctes: CteScope, bindings: Binding[], depth: number): SqlFrom | null {
    this.#tick(depth, node);
    const type = text(node.type);
    if (node.sample !== null) unsupported('TABLESAMPLE', this.#place(node));
    const alias = text(node.alias);
    const declaredAlias = alias === '' ? null : identifier(alias);
    switch (type) {
      case 'EMPTY':
        keys(node, TABLE_BASE, []);
        return null;
      case 'BASE_TABLE':
        return this.#baseTable(node, ctes, bindings, declaredAlias);
      case 'SUBQUERY':
        return this.#subquery(node, ctes, bindings, declaredAlias, depth);
      case 'JOIN':
        return this.#join(node, ctes, bindings, declaredAlias, depth);
      case 'TABLE_FUNCTION':
        return unsupported(
          tableFunctionName(node),
          this.#place(node),
          'FROM reads sources and models of the project, by name or id',
        );
      default:
        return unsupported(
          FROM_KINDS[type] ?? `${type.toLowerCase().replace(/_/g, ' ')} in FROM`,
          this.#place(node),
        );
    }
  }

  /**
   * The resource a table name stands for. One the project does not have
   * that is a typo of a CTE name in scope (`from delivred` beside `with
   * delivered as`) says so: the resolver knows the project's resources
   * only, and named the nearest of those.
   */
  #resolveOrNearCte(folded: string, ctes: CteScope, node: JsonObject): string {
    try {
      return this.resolver.resolveRelation(folded, this.#place(node).within);
    } catch (error: unknown) {
      if (!refuseContract.is(error, 'contract_reference_unavailable')) throw error;
      const cte = nearest(folded, ctes.keys());
      if (cte === undefined) throw error;
      throw error.at(
        {},
        `${error.hint === undefined ? '' : `${error.hint}; `}did you mean the CTE '${ctes.get(cte)?.name ?? cte}' of this query?`,
      );
    }
  }

  #baseTable(node: JsonObject, ctes: CteScope, bindings: Binding[], declaredAlias: string | null): SqlFrom {
    keys(node, BASE_TABLE_KEYS, []);
    // A schema or catalog would name a physical location, not a resource of the project.
    if (node.schema_name !== '' || node.catalog_name !== '') {
      const dotted = [text(node.catalog_name), text(node.schema_name), text(node.table_name)]
        .filter((part) => part !== '')
        .join('.');
      const located = this.resolver.relationsAt?.(dotted) ?? [];
      unsupported(
        `a schema-qualified table ${dotted}`,
        this.#place(node),
        this.resolver.isRelationId?.(dotted) === true
          ? `${dotted} is the id of a resource of the project: quote it as one identifier, "${dotted}"`
          : located.length === 1 && located[0] !== undefined
            ? `${dotted} is the location of ${located[0].id}: FROM reads it by its name, ${located[0].name} (or its id in double quotes, "${located[0].id}")`
            : located.length > 1
              ? `${dotted} is the location of ${located.map((one) => one.id).join(', ')}: FROM reads one of them by its id in double quotes`
              : 'FROM reads sources and models of the project, not tables: name one by its name, or by its id in double quotes as one identifier',
      );
    }
    if (node.at_clause !== null) unsupported('AT (time travel)', this.#place(node));
    if (!isEmptyArray(node.column_name_alias))
      unsupported(
        'column names after a table alias (t(a, b))',
        this.#place(node),
        'alias the columns in SELECT',
      );
    const written = identifier(text(node.table_name));
    const folded = asciiLower(written);
    const cte = ctes.get(folded);
    if (cte !== undefined) {
      const { columns } = cte;
      bindings.push(
        declaredAlias === null
          ? { folded, qualifier: { scope: 'cte', name: cte.name }, columns }
          : aliasBinding(declaredAlias, columns),
      );
      return { node: 'cte', name: cte.name, alias: declaredAlias };
    }
    const id = this.#resolveOrNearCte(folded, ctes, node);
    this.relations.add(id);
    const declared = this.resolver.relationColumns?.(id);
    const columns = declared === undefined ? null : new Set(declared.map(asciiLower));
    // An implicit qualifier (the relation's own name) resolves to the stable id;
    // an explicit alias keeps its query-local meaning.
    bindings.push(
      declaredAlias === null
        ? { folded, qualifier: { scope: 'resource', id }, columns }
        : aliasBinding(declaredAlias, columns),
    );
    return { node: 'resource', id, alias: declaredAlias };
  }

  #subquery(
    node: JsonObject,
    ctes: CteScope,
    bindings: Binding[],
    declaredAlias: string | null,
    depth: number,
  ): SqlFrom {
    keys(node, [...TABLE_BASE, 'subquery', 'column_name_alias'], []);
    if (!isEmptyArray(node.column_name_alias))
      unsupported(
        'column names after a subquery alias (t(a, b))',
        this.#place(node),
        'alias the columns in its SELECT',
      );
    this.#enclosing.push(new Set(bindings.map((binding) => binding.folded)));
    let query: SqlQuery;
    try {
      query = this.query(this.statement(node.subquery), ctes, depth + 1);
    } finally {
      this.#enclosing.pop();
    }
    if (declaredAlias !== null) bindings.push(aliasBinding(declaredAlias, outputColumns(query)));
    return { node: 'subquery', query, alias: declaredAlias };
  }

  #join(
    node: JsonObject,
    ctes: CteScope,
    bindings: Binding[],
    declaredAlias: string | null,
    depth: number,
  ): SqlFrom {
    keys(node, JOIN_KEYS, []);
    if (declaredAlias !== null) unsupported('an alias on a join', this.#place(node));
    if (node.delim_flipped !== false) unsupported();
    if (!isEmptyArray(node.duplicate_eliminated_columns)) unsupported();
    const kind = joinKind(text(node.ref_type), text(node.join_type), this.#place(node));
    const left = this.#from(object(node.left), ctes, bindings, depth + 1);
    const right = this.#from(object(node.right), ctes, bindings, depth + 1);
    if (left === null || right === null) return unsupported();
    const using = array(node.using_columns).map((column) => identifier(text(column)));
    if (kind === 'cross' && (node.condition !== null || using.length > 0))
      unsupported('a CROSS JOIN with ON or USING', this.#place(node));
    // The join condition sees the relations bound so far in this FROM clause.
    const scope = this.#scope(bindings, new Set(using.map(asciiLower)));
    const on = node.condition === null ? null : this.#expr(object(node.condition), scope, depth + 1);
    return { node: 'join', type: kind, left, right, on, using };
  }

  /**
   * The qualifiers the relations bound so far resolve to (two relations
   * under one name are ambiguous), remembering which relations could supply
   * an unqualified column and which columns a USING join merged.
   */
  #scope(bindings: readonly Binding[], merged: ReadonlySet<string>): ReadonlyMap<string, Qualifier> {
    const scope = new Map<string, Qualifier>();
    for (const binding of bindings) {
      if (scope.has(binding.folded)) {
        if (binding.refused === true) continue;
        fail('contract_sql_qualifier_ambiguous');
      }
      scope.set(binding.folded, binding.qualifier);
    }
    this.#suppliers.set(scope, { bindings: [...bindings], merged });
    return scope;
  }

  /**
   * An unqualified column that more than one relation in scope could supply
   * (DuckDB's binder rejects it as ambiguous), unless a USING join merged it
   * or, in ORDER BY, it names an output alias.
   */
  #ambiguous(folded: string, scope: ReadonlyMap<string, Qualifier>): readonly string[] {
    const suppliers = this.#suppliers.get(scope);
    if (suppliers === undefined || suppliers.merged.has(folded)) return [];
    const names = suppliers.bindings
      .filter(
        (binding) => binding.refused !== true && (binding.columns === null || binding.columns.has(folded)),
      )
      .map((binding) => binding.folded);
    return names.length > 1 ? names : [];
  }

  /**
   * An unqualified column more than one relation could supply, refused
   * naming the column, the relations and, when DuckDB gives the node's place,
   * its SQL line and column: names written in the operator's own SQL.
   */
  #refuseAmbiguousColumn(written: string, relations: readonly string[], node: JsonObject): never {
    const offset = typeof node.query_location === 'number' ? node.query_location : Number.NaN;
    const where = sqlPlace(this.sql, offset);
    const within = sqlPosition(this.sql, offset);
    const last = relations.at(-1);
    const listed = `${relations.slice(0, -1).join(', ')} or ${last ?? ''}`;
    throw refuseContract('contract_sql_qualifier_ambiguous', {
      role: ROLE,
      field: FIELD,
      hint: `column '${written}'${where} could come from ${listed}: qualify it (${relations[0] ?? ''}.${written})`,
      ...(within === undefined ? {} : { within }),
    });
  }

  /**
   * The relation a qualifier names in `scope`. An unknown one is refused
   * naming it, the names in scope (the nearest first, when one is close)
   * and, when DuckDB gives the node's place (`query_location`), its SQL line
   * and column: names written in the operator's own SQL, no other text.
   */
  #qualifier(written: string, scope: ReadonlyMap<string, Qualifier>, node: JsonObject): Qualifier {
    const folded = asciiLower(written);
    const qualifier = scope.get(folded);
    // A refused FROM item may have bound it: reported once, there.
    if (qualifier === undefined && scope.has(REFUSED_RELATION)) return { scope: 'alias', name: written };
    if (qualifier === undefined) {
      // Bound outside this subquery's FROM: a LATERAL reference, not an unknown name.
      if (this.#enclosing.some((names) => names.has(folded))) {
        unsupported(
          `a LATERAL subquery (it reads '${written}' from the FROM around it)`,
          this.#place(node),
          'join the subquery on a condition instead',
        );
      }
      const offset = typeof node.query_location === 'number' ? node.query_location : Number.NaN;
      const where = sqlPlace(this.sql, offset);
      const within = sqlPosition(this.sql, offset);
      const names = [...scope.keys()];
      // One- and two-letter aliases are all near each other: no suggestion among them.
      const near = folded.length < 3 ? undefined : nearest(folded, names);
      const inScope = names.length === 0 ? 'no relation is in scope there' : `in scope: ${names.join(', ')}`;
      // Either spelling may be the slip: the qualifier here, or the name in
      // FROM or JOIN (`join custmers` beside `customers.id`, where "did you
      // mean 'custmers'" asked to copy the typo). Said both ways.
      const alike =
        near === undefined
          ? ''
          : `'${near}' is in scope, spelt nearly alike: write both the same, fixing whichever is misspelt (here, or in FROM or JOIN); `;
      throw refuseContract('contract_sql_qualifier_unknown', {
        role: ROLE,
        field: FIELD,
        hint: `no relation '${written}' in scope${where}; ${alike}${inScope}`,
        ...(within === undefined ? {} : { within }),
      });
    }
    return qualifier;
  }

  #expr(
    node: JsonObject,
    scope: ReadonlyMap<string, Qualifier>,
    depth: number,
    aliasAllowed = false,
  ): SqlExpr {
    return this.#part(
      () => this.#expression(node, scope, depth, aliasAllowed),
      () => ({ node: 'literal', type: 'null' }),
    );
  }

  #expression(
    node: JsonObject,
    scope: ReadonlyMap<string, Qualifier>,
    depth: number,
    aliasAllowed: boolean,
  ): SqlExpr {
    this.#tick(depth, node);
    // Aliases exist on select items only; elsewhere (struct members) they would carry meaning we drop.
    if (!aliasAllowed && node.alias !== '') unsupported('an alias inside an expression', this.#place(node));
    const cls = text(node.class);
    const type = text(node.type);
    const at: ExprSite = { scope, depth };
    switch (cls) {
      case 'COLUMN_REF':
        return this.#columnRef(node, scope);
      case 'STAR':
        return this.#star(node, scope, aliasAllowed);
      case 'CONSTANT':
        keys(node, [...EXPRESSION_BASE, 'value'], []);
        return this.#constant(object(node.value), node);
      case 'COMPARISON':
        return this.#comparison(node, type, at);
      case 'CONJUNCTION':
        return this.#conjunction(node, type, at);
      case 'OPERATOR':
        return this.#operator(node, type, at);
      case 'BETWEEN':
        return this.#between(node, type, at);
      case 'FUNCTION':
        return this.#call(node, at);
      case 'CAST':
        return this.#cast(node, at);
      case 'CASE':
        return this.#case(node, at);
      default:
        return unsupported(
          EXPRESSION_KINDS[cls] ?? `a ${cls.toLowerCase().replace(/_/g, ' ')} expression`,
          this.#place(node),
        );
    }
  }

  /** An operand of the node at `at`: one level deeper, in the same scope. */
  #child(value: JsonValue | undefined, at: ExprSite): SqlExpr {
    return this.#expr(object(value), at.scope, at.depth + 1);
  }

  #children(value: JsonValue | undefined, at: ExprSite): SqlExpr[] {
    return array(value).map((item) => this.#child(item, at));
  }

  #columnRef(node: JsonObject, scope: ReadonlyMap<string, Qualifier>): SqlExpr {
    keys(node, [...EXPRESSION_BASE, 'column_names'], []);
    const names = array(node.column_names).map((name) => identifier(text(name)));
    const [first, second] = names;
    if (names.length === 1 && first !== undefined) {
      const relations = this.#ambiguous(asciiLower(first), scope);
      if (relations.length > 0) this.#refuseAmbiguousColumn(first, relations, node);
      return { node: 'column', qualifier: null, name: first };
    }
    if (names.length === 2 && first !== undefined && second !== undefined) {
      return { node: 'column', qualifier: this.#qualifier(first, scope, node), name: second };
    }
    return unsupported();
  }

  #star(node: JsonObject, scope: ReadonlyMap<string, Qualifier>, aliasAllowed: boolean): SqlExpr {
    keys(node, STAR_KEYS, []);
    if (!aliasAllowed || node.alias !== '')
      unsupported('* inside an expression or with an alias', this.#place(node));
    for (const [list, words] of STAR_LISTS) {
      if (!isEmptyArray(node[list])) unsupported(words, this.#place(node), 'list the columns you want');
    }
    if (node.columns !== false || node.expr !== null) unsupported('COLUMNS(…)', this.#place(node));
    const relation = text(node.relation_name);
    return {
      node: 'star',
      qualifier: relation === '' ? null : this.#qualifier(identifier(relation), scope, node),
    };
  }

  #comparison(node: JsonObject, type: string, at: ExprSite): SqlExpr {
    keys(node, [...EXPRESSION_BASE, 'left', 'right'], []);
    const op = COMPARISONS[type];
    if (op === undefined) return unsupported();
    return { node: 'compare', op, left: this.#child(node.left, at), right: this.#child(node.right, at) };
  }

  #conjunction(node: JsonObject, type: string, at: ExprSite): SqlExpr {
    keys(node, [...EXPRESSION_BASE, 'children'], []);
    const op = CONJUNCTIONS[type];
    const args = this.#children(node.children, at);
    if (op === undefined || args.length < 2) return unsupported();
    return { node: 'logical', op, args };
  }

  #operator(node: JsonObject, type: string, at: ExprSite): SqlExpr {
    keys(node, [...EXPRESSION_BASE, 'children'], []);
    const args = this.#children(node.children, at);
    const [first, ...rest] = args;
    if (first === undefined) return unsupported();
    switch (type) {
      case 'OPERATOR_NOT':
        if (rest.length !== 0) unsupported();
        return { node: 'not', arg: first };
      case 'OPERATOR_IS_NULL':
      case 'OPERATOR_IS_NOT_NULL':
        if (rest.length !== 0) unsupported();
        return { node: 'is_null', negated: type === 'OPERATOR_IS_NOT_NULL', arg: first };
      case 'COMPARE_IN':
      case 'COMPARE_NOT_IN':
        if (rest.length === 0) unsupported();
        return { node: 'in', negated: type === 'COMPARE_NOT_IN', arg: first, list: rest };
      case 'OPERATOR_COALESCE':
        return { node: 'coalesce', args };
      default:
        return unsupported(OPERATOR_KINDS[type] ?? `the operator ${type}`, this.#place(node));
    }
  }

  #between(node: JsonObject, type: string, at: ExprSite): SqlExpr {
    keys(node, [...EXPRESSION_BASE, 'input', 'lower', 'upper'], []);
    if (type !== 'COMPARE_BETWEEN') unsupported();
    return {
      node: 'between',
      arg: this.#child(node.input, at),
      low: this.#child(node.lower, at),
      high: this.#child(node.upper, at),
    };
  }

  #call(node: JsonObject, at: ExprSite): SqlExpr {
    keys(node, FUNCTION_KEYS, []);
    // The parser writes some built-ins (TRIM, SUBSTRING syntax) with schema "main";
    // the function is the same one either way.
    // DuckDB writes count(*) as count_star: say it as written.
    const raw = text(node.function_name);
    const written = raw === 'count_star' ? 'count(*)' : raw;
    const place = this.#place(node);
    if ((node.schema !== '' && node.schema !== 'main') || node.catalog !== '')
      unsupported(`a schema-qualified function (${text(node.schema)}.${written})`, place);
    if (node.filter !== null)
      unsupported(`FILTER (WHERE …) on ${written}`, place, 'use CASE inside the aggregate');
    if (node.export_state !== false) unsupported('EXPORT_STATE', place);
    const orderBys = object(node.order_bys);
    keys(orderBys, ['type', 'orders'], []);
    if (orderBys.type !== 'ORDER_MODIFIER' || !isEmptyArray(orderBys.orders))
      unsupported(`ORDER BY inside ${written}(…)`, place);
    const operator = bool(node.is_operator);
    const name = operator ? OPERATOR_FUNCTIONS[raw] : NAMED_FUNCTIONS.get(raw);
    if (name === undefined) {
      if (operator) return unsupported(`the operator ${written}`, place);
      const near = didYouMean(asciiLower(written), SQL_NAMED_FUNCTIONS);
      return unsupported(
        `the function ${written}`,
        place,
        near ?? 'the functions model SQL may call are listed in docs/contracts.md#model-sql',
      );
    }
    return { node: 'call', name, args: this.#children(node.children, at), distinct: bool(node.distinct) };
  }

  #cast(node: JsonObject, at: ExprSite): SqlExpr {
    keys(node, [...EXPRESSION_BASE, 'child', 'cast_type', 'try_cast'], []);
    if (node.try_cast !== false) unsupported('TRY_CAST', this.#place(node), 'CAST is allowed');
    return { node: 'cast', type: this.#type(object(node.cast_type)), arg: this.#child(node.child, at) };
  }

  #case(node: JsonObject, at: ExprSite): SqlExpr {
    keys(node, [...EXPRESSION_BASE, 'case_checks', 'else_expr'], []);
    const branches = array(node.case_checks).map((entry) => {
      const check = object(entry);
      keys(check, ['when_expr', 'then_expr'], []);
      return { when: this.#child(check.when_expr, at), result: this.#child(check.then_expr, at) };
    });
    if (branches.length === 0) unsupported();
    return {
      node: 'case',
      branches,
      else: node.else_expr === null ? null : this.#child(node.else_expr, at),
    };
  }

  #type(castType: JsonObject): PhysicalType {
    keys(castType, ['id', 'type_info'], []);
    const id = text(castType.id);
    if (id === 'DECIMAL') {
      const info = object(castType.type_info);
      keys(info, ['type', 'alias', 'extension_info', 'width', 'scale'], []);
      if (info.type !== 'DECIMAL_TYPE_INFO' || info.alias !== '' || info.extension_info !== null)
        unsupported();
      const precision = Number(integer(info.width));
      const scale = Number(integer(info.scale));
      if (precision < 1 || precision > 38 || scale < 0 || scale > precision)
        unsupported('a DECIMAL outside 1 ≤ precision ≤ 38 and scale ≤ precision');
      return { name: 'decimal', precision, scale };
    }
    const mapped = CAST_TYPES[id];
    if (mapped === undefined)
      unsupported(`the type ${id}`, undefined, `the types model SQL may name are ${CAST_TYPE_WORDS}`);
    if (castType.type_info !== null) unsupported(`the type ${id} with parameters`);
    return mapped as PhysicalType;
  }

  #constant(value: JsonObject, node: JsonObject): SqlExpr {
    const typeNode = object(value.type);
    keys(typeNode, ['id', 'type_info'], []);
    const id = text(typeNode.id);
    if (value.is_null === true) {
      keys(value, ['type', 'is_null'], []);
      if (id !== 'NULL' || typeNode.type_info !== null) unsupported();
      return { node: 'literal', type: 'null' };
    }
    keys(value, ['type', 'is_null', 'value'], []);
    if (value.is_null !== false) unsupported();
    if (id === 'VARCHAR') {
      if (typeNode.type_info !== null) unsupported();
      const literal = text(value.value);
      if (literal.length > MAX_SQL_STRING) {
        fail(
          'contract_sql_too_complex',
          `a string literal is longer than ${MAX_SQL_STRING.toLocaleString('en-US')} characters`,
        );
      }
      return { node: 'literal', type: 'string', value: requireNfc(literal, { role: ROLE, field: FIELD }) };
    }
    if (INTEGER_CONSTANTS.has(id)) {
      if (typeNode.type_info !== null) unsupported();
      return { node: 'literal', type: 'integer', value: hugeint(value.value).toString() };
    }
    if (id === 'DECIMAL') {
      const { scale } = this.#type(typeNode) as { scale: number };
      const unscaled = hugeint(value.value);
      const negative = unscaled < 0n;
      const digits = (negative ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
      const body = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
      return { node: 'literal', type: 'decimal', value: negative ? `-${body}` : body };
    }
    // DOUBLE and FLOAT constants are approximate: refused rather than rounded into an identity.
    // The example is fixed text, worded so that it cannot pass for the user's own constant.
    if (id === 'DOUBLE' || id === 'FLOAT')
      return unsupported(
        'a floating-point constant (an exponent, or more than 38 digits)',
        this.#place(node),
        'write it as a decimal literal of at most 38 digits, e.g. 1500 instead of 1.5e3',
      );
    return unsupported(CONSTANT_KINDS[id] ?? `a ${id} constant`);
  }
}
