import { refuseContract } from '../authoring/refusals.js';
import type { ProjectionPayload } from './payload.js';

type DeepReadonly<T> = T extends readonly (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

declare const viewBrand: unique symbol;

/**
 * A read-only view of a projection: what `SealedProjection.view()` and
 * `decodeProjection` return. It is plain data and can never be canonicalized
 * or re-sealed: `canonicalizeProjection` takes a `SealedProjection`, which a
 * view is not, in the type system (the class is nominal through its private
 * field) or at run time (the registry below).
 */
export type ProjectionView = DeepReadonly<ProjectionPayload> & { readonly [viewBrand]: true };

/** Every instance the constructor below made; nothing else is sealed. */
const SEALED = new WeakSet<object>();

/** Only code holding this token (this module) can run the constructor, even from plain JavaScript. */
const TOKEN: unique symbol = Symbol('SealedProjection');

let construct: ((payload: ProjectionPayload) => SealedProjection) | undefined;

/**
 * A projection built by the projection constructors from a validated
 * resource of a validated project graph. The constructor is private and the
 * factory is reachable only inside the projection package; the payload is
 * deeply frozen and held in a private field.
 */
export class SealedProjection {
  readonly #payload: ProjectionPayload;

  private constructor(token: typeof TOKEN, payload: ProjectionPayload) {
    if (token !== TOKEN) throw refuseContract('contract_not_sealed', { role: 'projection' });
    this.#payload = deepFreeze(payload);
    SEALED.add(this);
    Object.freeze(this);
  }

  static {
    construct = (payload) => new SealedProjection(TOKEN, payload);
  }

  get kind(): ProjectionPayload['resource']['kind'] {
    return this.#payload.resource.kind;
  }

  get id(): string {
    return this.#payload.resource.id;
  }

  get version(): string {
    return this.#payload.contract.version;
  }

  get compatibility(): ProjectionPayload['contract']['compatibility'] {
    return this.#payload.contract.compatibility;
  }

  /** The payload as read-only data (for inspection and independent cross-checks). */
  view(): ProjectionView {
    // The brand exists only in the type (`viewBrand` is declared, never
    // defined), so no value carries it; the payload, deep-frozen by the
    // constructor, is what the view type describes.
    return this.#payload as unknown as ProjectionView;
  }

  /** @internal The payload of a genuine instance, or undefined for anything else. */
  static payloadOf(value: unknown): ProjectionPayload | undefined {
    if (typeof value !== 'object' || value === null || !SEALED.has(value)) return undefined;
    return #payload in value ? (value as SealedProjection).#payload : undefined;
  }
}

/** @internal Used by the projection constructor only. */
export function sealPayload(payload: ProjectionPayload): SealedProjection {
  if (construct === undefined) throw new Error('SealedProjection is not initialized');
  return construct(payload);
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
