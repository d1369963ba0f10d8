import { asciiLower } from '../authoring/identifiers.js';
import type { Qualifier, SqlCte, SqlExpr, SqlFrom, SqlOrder, SqlQuery } from './ast.js';

/**
 * Replaces every query-local name — table aliases and CTE names — by a
 * positional one, so renaming `o` to `ord` or a CTE `recent` to `r` does not
 * change a model's identity (docs/contracts.md#query-local-names). Aliases
 * become `t1`, `t2`, … and CTEs `cte1`, `cte2`, … in order of definition
 * (depth-first, a query's CTEs before its body, a FROM clause left to right,
 * a name before the query it names). Output column names are not query-local
 * and are kept. Runs on a converted query, whose references the converter
 * already bound and refused when ambiguous, so every reference finds its
 * definition; one that does not is an internal error.
 */
export function canonicalLocalNames(query: SqlQuery): SqlQuery {
  let aliases = 0;
  let ctes = 0;

  const bound = (names: ReadonlyMap<string, string>, written: string): string => {
    const name = names.get(asciiLower(written));
    if (name === undefined) throw new Error('a query-local name without a definition');
    return name;
  };

  const qualifier = (
    q: Qualifier | null,
    local: ReadonlyMap<string, string>,
    env: ReadonlyMap<string, string>,
  ): Qualifier | null => {
    if (q === null || q.scope === 'resource') return q;
    return q.scope === 'alias'
      ? { scope: 'alias', name: bound(local, q.name) }
      : { scope: 'cte', name: bound(env, q.name) };
  };

  const expr = (
    e: SqlExpr,
    local: ReadonlyMap<string, string>,
    env: ReadonlyMap<string, string>,
  ): SqlExpr => {
    const sub = (x: SqlExpr) => expr(x, local, env);
    switch (e.node) {
      case 'column':
        return { node: 'column', qualifier: qualifier(e.qualifier, local, env), name: e.name };
      case 'star':
        return { node: 'star', qualifier: qualifier(e.qualifier, local, env) };
      case 'literal':
        return e;
      case 'compare':
        return { node: 'compare', op: e.op, left: sub(e.left), right: sub(e.right) };
      case 'logical':
        return { node: 'logical', op: e.op, args: e.args.map(sub) };
      case 'not':
        return { node: 'not', arg: sub(e.arg) };
      case 'is_null':
        return { node: 'is_null', negated: e.negated, arg: sub(e.arg) };
      case 'in':
        return { node: 'in', negated: e.negated, arg: sub(e.arg), list: e.list.map(sub) };
      case 'between':
        return { node: 'between', arg: sub(e.arg), low: sub(e.low), high: sub(e.high) };
      case 'call':
        return { node: 'call', name: e.name, args: e.args.map(sub), distinct: e.distinct };
      case 'cast':
        return { node: 'cast', type: e.type, arg: sub(e.arg) };
      case 'case':
        return {
          node: 'case',
          branches: e.branches.map((branch) => ({ when: sub(branch.when), result: sub(branch.result) })),
          else: e.else === null ? null : sub(e.else),
        };
      case 'coalesce':
        return { node: 'coalesce', args: e.args.map(sub) };
    }
  };

  const order = (
    o: SqlOrder,
    local: ReadonlyMap<string, string>,
    env: ReadonlyMap<string, string>,
  ): SqlOrder => ({
    expr: expr(o.expr, local, env),
    direction: o.direction,
    nulls: o.nulls,
  });

  /** A FROM clause: its aliases are defined in `local` (this SELECT's), left to right. */
  const from = (f: SqlFrom, local: Map<string, string>, env: ReadonlyMap<string, string>): SqlFrom => {
    const define = (alias: string | null): string | null => {
      if (alias === null) return null;
      aliases += 1;
      const name = `t${aliases}`;
      local.set(asciiLower(alias), name);
      return name;
    };
    switch (f.node) {
      case 'resource':
        return { node: 'resource', id: f.id, alias: define(f.alias) };
      case 'cte':
        return { node: 'cte', name: bound(env, f.name), alias: define(f.alias) };
      case 'subquery': {
        const alias = define(f.alias);
        return { node: 'subquery', query: rename(f.query, env), alias };
      }
      case 'join': {
        const left = from(f.left, local, env);
        const right = from(f.right, local, env);
        return {
          node: 'join',
          type: f.type,
          left,
          right,
          on: f.on === null ? null : expr(f.on, local, env),
          using: f.using,
        };
      }
    }
  };

  const rename = (q: SqlQuery, outer: ReadonlyMap<string, string>): SqlQuery => {
    const env = new Map(outer);
    const withs: SqlCte[] = q.with.map((cte) => {
      ctes += 1;
      const name = `cte${ctes}`;
      // Non-recursive: a CTE's body sees the CTEs before it, never itself.
      const body = rename(cte.query, env);
      env.set(asciiLower(cte.name), name);
      return { name, query: body };
    });
    const none = new Map<string, string>();
    const limit = q.limit === null ? null : expr(q.limit, none, env);
    const offset = q.offset === null ? null : expr(q.offset, none, env);
    if (q.node === 'set') {
      const left = rename(q.left, env);
      const right = rename(q.right, env);
      return {
        node: 'set',
        with: withs,
        op: q.op,
        all: q.all,
        left,
        right,
        order_by: q.order_by.map((o) => order(o, none, env)),
        limit,
        offset,
      };
    }
    const local = new Map<string, string>();
    const source = q.from === null ? null : from(q.from, local, env);
    const sub = (e: SqlExpr) => expr(e, local, env);
    return {
      node: 'select',
      with: withs,
      distinct: q.distinct,
      select: q.select.map((item) => ({ expr: sub(item.expr), alias: item.alias })),
      from: source,
      where: q.where === null ? null : sub(q.where),
      group_by: q.group_by.map(sub),
      having: q.having === null ? null : sub(q.having),
      order_by: q.order_by.map((o) => order(o, local, env)),
      limit,
      offset,
    };
  };

  return rename(query, new Map());
}
