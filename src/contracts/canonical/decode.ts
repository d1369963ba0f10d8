import { type Sha256Prefixed, sha256Prefixed } from '../../core/digest/index.js';
import { pointerOf } from '../../core/input/index.js';
import { canonicalize, parseStrict } from '../../core/json/index.js';
import { at } from '../../core/list/index.js';
import { Refusal } from '../../core/refusal/index.js';
import { parseDecimalLexeme } from '../authoring/decimal.js';
import type { PhysicalType } from '../authoring/physical-type.js';
import { refuseContract } from '../authoring/refusals.js';
import { schemaCheckOptions } from '../authoring/schema-compilation.js';
import { compareCodeUnits, requireNfc } from '../authoring/text.js';
import { typeLiteral } from '../projection/literals.js';
import {
  type FieldPayload,
  type ProjectionPayload,
  ProjectionSchema,
  type SemanticModelContent,
  type TypedLiteralPayload,
} from '../projection/payload.js';
import { deepFreeze, type ProjectionView } from '../projection/sealed.js';
import { normalizeUrl } from '../projection/url.js';
import type { SqlExpr, SqlFrom, SqlQuery } from '../sql/ast.js';

/** Nesting of a projection document; the SQL AST is the deepest part. */
const MAX_DEPTH = 640;
const MAX_BYTES = 32 * 1024 * 1024;

/**
 * Publication decoding: validates every nested node of published bytes
 * against the closed projection representation, requires the bytes to be
 * exactly the RFC 8785 encoding of what they hold, and requires every value to
 * be in the normal form projection writes (sorted deduplicated sets, NFC text,
 * normalized links, canonical typed literals). Returns a frozen read view —
 * which can never be canonicalized or sealed again.
 */
export function decodeProjection(bytes: Uint8Array, expected?: Sha256Prefixed): ProjectionView {
  if (expected !== undefined && sha256Prefixed(bytes) !== expected) {
    throw refuseContract('contract_projection_digest_mismatch', { role: 'projection' });
  }
  let value: unknown;
  try {
    value = parseStrict(bytes, { maxBytes: MAX_BYTES, maxDepth: MAX_DEPTH });
  } catch (error: unknown) {
    // Where the JSON breaks, and the JSON reader's advice: a projection is
    // the operator's own file (docs/refusals.md#two-policies).
    const inner = error instanceof Refusal ? error : undefined;
    throw refuseContract('contract_projection_malformed', {
      role: 'projection',
      ...(inner?.location === undefined ? {} : { location: inner.location }),
      hint: `not strict JSON (${inner?.code ?? 'unreadable'})${inner?.hint === undefined ? '' : `: ${inner.hint}`}`,
    });
  }
  const parsed = ProjectionSchema.safeParse(value, schemaCheckOptions());
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = (issue?.path ?? []).filter((segment) => typeof segment !== 'symbol');
    throw refuseContract('contract_projection_malformed', {
      role: 'projection',
      ...(path.length === 0 ? {} : { location: { pointer: pointerOf(path) } }),
      hint: 'write projections with `sealkit contract project --out`; they are not edited by hand',
    });
  }
  const notCanonical = () => refuseContract('contract_projection_not_canonical', { role: 'projection' });
  let text: string;
  try {
    text = canonicalize(value);
  } catch {
    throw notCanonical();
  }
  if (Buffer.compare(Buffer.from(text, 'utf8'), Buffer.from(bytes)) !== 0) throw notCanonical();
  try {
    checkNormalForm(parsed.data);
  } catch (error: unknown) {
    if (error instanceof Refusal || error instanceof NotNormal) throw notCanonical();
    throw error;
  }
  return deepFreeze(value) as ProjectionView;
}

class NotNormal extends Error {}

function require(condition: boolean): void {
  if (!condition) throw new NotNormal();
}

function strictlySorted<T>(items: readonly T[], key: (item: T) => string): void {
  for (let i = 1; i < items.length; i++) {
    require(compareCodeUnits(key(at(items, i - 1)), key(at(items, i))) < 0);
  }
}

const SITE = { role: 'projection', field: 'content' } as const;
const nfc = (text: string) => requireNfc(text, SITE);

/** A literal is canonical when typing its own value through its type gives it back unchanged. */
function literalIsCanonical(literal: TypedLiteralPayload, type: PhysicalType): void {
  require(canonicalize(typeLiteral(literal.value, type, SITE)) === canonicalize(literal));
}

function checkFields(fields: readonly FieldPayload[]): Map<string, PhysicalType> {
  strictlySorted(fields, (field) => field.name);
  const types = new Map<string, PhysicalType>();
  for (const field of fields) {
    nfc(field.name);
    if (field.type.name === 'decimal') require(field.type.scale <= field.type.precision);
    types.set(field.name, field.type as PhysicalType);
    strictlySorted(field.authoritative_definitions, (link) => link);
    for (const link of field.authoritative_definitions) require(normalizeUrl(link, SITE) === link);
    if (field.deprecation !== null) {
      nfc(field.deprecation.guidance);
      if (field.deprecation.replaced_by !== null) nfc(field.deprecation.replaced_by);
    }
  }
  for (const field of fields) {
    const replacement = field.deprecation?.replaced_by;
    if (replacement !== undefined && replacement !== null)
      require(types.has(replacement) && replacement !== field.name);
  }
  return types;
}

function checkNormalForm(payload: ProjectionPayload): void {
  const content = payload.content;
  switch (payload.resource.kind) {
    case 'Source':
      checkFields((content as { fields: FieldPayload[] }).fields);
      return;
    case 'Model': {
      const model = content as Extract<ProjectionPayload, { resource: { kind: 'Model' } }>['content'];
      const types = checkFields(model.fields);
      strictlySorted(model.checks, (check) => canonicalize(check));
      for (const check of model.checks) {
        if (check.type === 'unique') {
          strictlySorted(check.fields, (field) => canonicalize(field));
          for (const field of check.fields) require(types.has(field));
        } else {
          const type = types.get(check.field);
          require(type !== undefined);
          if (check.type === 'accepted_values' && type !== undefined) {
            strictlySorted(check.values, (value) => canonicalize(value));
            for (const value of check.values) literalIsCanonical(value, type);
          }
        }
      }
      checkQuery(model.sql);
      return;
    }
    case 'SemanticModel':
      checkSemantic(content as SemanticModelContent);
      return;
  }
}

function checkSemantic(content: SemanticModelContent): void {
  for (const list of [
    content.entities,
    content.dimensions,
    content.measures,
    content.relationships,
    content.filters,
  ]) {
    strictlySorted(list as readonly { name: string }[], (member) => member.name);
  }
  for (const entity of content.entities) for (const field of entity.fields) nfc(field);
  const bindings = new Map<string, PhysicalType>();
  for (const dimension of content.dimensions) {
    require(dimension.binding.resource === content.dataset);
    require((dimension.type === 'time') === (dimension.time_granularity !== null));
    bindings.set(dimension.name, dimension.binding.type as PhysicalType);
  }
  for (const measure of content.measures) {
    if (measure.binding !== null) require(measure.binding.resource === content.dataset);
  }
  for (const filter of content.filters) {
    strictlySorted(filter.conditions, (condition) => canonicalize(condition));
    for (const condition of filter.conditions) {
      const type = bindings.get(condition.dimension);
      require(type !== undefined && canonicalize(condition.binding.type) === canonicalize(type));
      strictlySorted(condition.values, (value) => canonicalize(value));
      const arity = condition.values.length;
      if (condition.op === 'is_null' || condition.op === 'is_not_null') require(arity === 0);
      else if (condition.op === 'in' || condition.op === 'not_in') require(arity >= 1);
      else require(arity === 1);
      for (const value of condition.values) if (type !== undefined) literalIsCanonical(value, type);
    }
  }
}

function checkQuery(query: SqlQuery): void {
  for (const cte of query.with) {
    nfc(cte.name);
    checkQuery(cte.query);
  }
  for (const order of query.order_by) checkExpr(order.expr);
  if (query.limit !== null) checkExpr(query.limit);
  if (query.offset !== null) checkExpr(query.offset);
  if (query.node === 'set') {
    checkQuery(query.left);
    checkQuery(query.right);
    return;
  }
  for (const item of query.select) {
    if (item.alias !== null) nfc(item.alias);
    checkExpr(item.expr);
  }
  if (query.from !== null) checkFrom(query.from);
  for (const expr of [query.where, query.having, ...query.group_by]) if (expr !== null) checkExpr(expr);
}

function checkFrom(from: SqlFrom): void {
  switch (from.node) {
    case 'resource':
    case 'cte':
      if (from.alias !== null) nfc(from.alias);
      return;
    case 'subquery':
      if (from.alias !== null) nfc(from.alias);
      checkQuery(from.query);
      return;
    case 'join':
      checkFrom(from.left);
      checkFrom(from.right);
      if (from.on !== null) checkExpr(from.on);
      for (const column of from.using) nfc(column);
  }
}

function checkExpr(expr: SqlExpr): void {
  switch (expr.node) {
    case 'column':
      nfc(expr.name);
      return;
    case 'star':
      return;
    case 'literal':
      if (expr.type === 'string') nfc(expr.value);
      else if (expr.type === 'integer')
        require(/^-?(?:0|[1-9][0-9]*)$/.test(expr.value) && expr.value !== '-0');
      else if (expr.type === 'decimal') {
        require(/^-?[0-9]+(?:\.[0-9]+)?$/.test(expr.value));
        const parsed = parseDecimalLexeme(expr.value.replace(/^(-?)0+(?=[0-9])/, '$1'));
        require(parsed !== undefined);
      }
      return;
    case 'compare':
      checkExpr(expr.left);
      checkExpr(expr.right);
      return;
    case 'logical':
    case 'call':
    case 'coalesce':
      for (const arg of expr.args) checkExpr(arg);
      return;
    case 'not':
    case 'is_null':
    case 'cast':
      checkExpr(expr.arg);
      return;
    case 'in':
      checkExpr(expr.arg);
      for (const item of expr.list) checkExpr(item);
      return;
    case 'between':
      checkExpr(expr.arg);
      checkExpr(expr.low);
      checkExpr(expr.high);
      return;
    case 'case':
      for (const branch of expr.branches) {
        checkExpr(branch.when);
        checkExpr(branch.result);
      }
      if (expr.else !== null) checkExpr(expr.else);
  }
}
