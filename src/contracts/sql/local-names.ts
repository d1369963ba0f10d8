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
  return new LocalNames().rename(query, new Map());
}

/** Query-local name (folded) → its positional name, for the definitions in scope. */
type Names = ReadonlyMap<string, string>;

/** One renaming pass: the counters number definitions in the order the walk meets them. */
class LocalNames {
  #aliases = 0;
  #ctes = 0;

  rename(q: SqlQuery, outer: Names): SqlQuery {
    const env = new Map(outer);
    const withs: SqlCte[] = q.with.map((cte) => {
      this.#ctes += 1;
      const name = `cte${this.#ctes}`;
      // Non-recursive: a CTE's body sees the CTEs before it, never itself.
      const body = this.rename(cte.query, env);
      env.set(asciiLower(cte.name), name);
      return { name, query: body };
    });
    const none = new Map<string, string>();
    const limit = q.limit === null ? null : this.#expr(q.limit, none, env);
    const offset = q.offset === null ? null : this.#expr(q.offset, none, env);
    if (q.node === 'set') {
      const left = this.rename(q.left, env);
      const right = this.rename(q.right, env);
      return {
        node: 'set',
        with: withs,
        op: q.op,
        all: q.all,
        left,
        right,
        order_by: q.order_by.map((o) => this.#order(o, none, env)),
        limit,
        offset,
      };
    }
    const local = new Map<string, string>();
    const source = q.from === null ? null : this.#from(q.from, local, env);
    const sub = (e: SqlExpr) => this.#expr(e, local, env);
    return {
      node: 'select',
      with: withs,
      distinct: q.distinct,
      select: q.select.map((item) => ({ expr: sub(item.expr), alias: item.alias })),
      from: source,
      where: q.where === null ? null : sub(q.where),
      group_by: q.group_by.map(sub),
      having: q.having === null ? null : sub(q.having),
      order_by: q.order_by.map((o) => this.#order(o, local, env)),
      limit,
      offset,
    };
  }

  /** A FROM clause: its aliases are defined in `local` (this SELECT's), left to right. */
  #from(f: SqlFrom, local: Map<string, string>, env: Names): SqlFrom {
    switch (f.node) {
      case 'resource':
        return { node: 'resource', id: f.id, alias: this.#define(f.alias, local) };
      case 'cte':
        return { node: 'cte', name: bound(env, f.name), alias: this.#define(f.alias, local) };
      case 'subquery': {
        const alias = this.#define(f.alias, local);
        return { node: 'subquery', query: this.rename(f.query, env), alias };
      }
      case 'join': {
        const left = this.#from(f.left, local, env);
        const right = this.#from(f.right, local, env);
        return {
          node: 'join',
          type: f.type,
          left,
          right,
          on: f.on === null ? null : this.#expr(f.on, local, env),
          using: f.using,
        };
      }
    }
  }

  #define(alias: string | null, local: Map<string, string>): string | null {
    if (alias === null) return null;
    this.#aliases += 1;
    const name = `t${this.#aliases}`;
    local.set(asciiLower(alias), name);
    return name;
  }

  #order(o: SqlOrder, local: Names, env: Names): SqlOrder {
    return { expr: this.#expr(o.expr, local, env), direction: o.direction, nulls: o.nulls };
  }

  #expr(e: SqlExpr, local: Names, env: Names): SqlExpr {
    const sub = (x: SqlExpr) => this.#expr(x, local, env);
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
  }
}

function bound(names: Names, written: string): string {
  const name = names.get(asciiLower(written));
  if (name === undefined) throw new Error('a query-local name without a definition');
  return name;
}

function qualifier(q: Qualifier | null, local: Names, env: Names): Qualifier | null {
  if (q === null || q.scope === 'resource') return q;
  return q.scope === 'alias'
    ? { scope: 'alias', name: bound(local, q.name) }
    : { scope: 'cte', name: bound(env, q.name) };
}
