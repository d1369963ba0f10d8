import { join } from 'node:path';
import { nodeAt, type YamlNode } from '../../core/input/index.js';
import {
  didYouMean,
  guardRefusals,
  guardRefusalsAsync,
  Refusal,
  refuseAll,
  toRefusal,
} from '../../core/refusal/index.js';
import { isResourceId } from '../authoring/identifiers.js';
import { authoredPointerOf, placeEach, positioned, segmentsOf } from '../authoring/locate.js';
import { refuseContract } from '../authoring/refusals.js';
import { RESOURCE_KINDS, type ResourceKind, ROLE_OF_KIND } from '../authoring/schemas/resource.js';
import { compareCodeUnits } from '../authoring/text.js';
import { type ValidatedResource, validateLocated } from '../authoring/validate.js';
import { readResourceDocument } from '../authoring/yaml.js';
import { type CanonicalProjection, canonicalizeProjection } from '../canonical/canonical.js';
import type { BuildContext, BuiltContent } from '../projection/build-context.js';
import { type ContractFallback, constructProjection } from '../projection/construct.js';
import { Faults } from '../projection/faults.js';
import { buildModelContent } from '../projection/model.js';
import type { ProjectionPayload } from '../projection/payload.js';
import type { SealedProjection } from '../projection/sealed.js';
import { buildSemanticModelContent } from '../projection/semantic-model.js';
import { buildSourceContent } from '../projection/source.js';
import type { SqlParser } from '../sql/parser.js';
import { checkDashboard } from './dashboard.js';
import { ReferenceContext } from './reference-context.js';

/** One resource file of a project: its path relative to the project folder and its bytes. */
export interface ProjectFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

/**
 * `valid`: the resource passed every check; `refused`: it did not (see
 * `refusal`); `blocked`: it was not checked because what it refers to may be
 * declared in a refused file (see `blockedBy`).
 */
export type OutcomeStatus = 'valid' | 'refused' | 'blocked';

export interface ResourceOutcome {
  /** 1-based position of the file in byte order of its relative path. */
  readonly file: number;
  /** The file's path relative to the project folder. */
  readonly path: string;
  /** The file as the operator finds it: the project folder as given, joined with `path`. */
  readonly displayPath: string;
  readonly status: OutcomeStatus;
  readonly kind: ResourceKind | null;
  readonly id: string | null;
  /** The authored contract version, or null (unversioned, dashboards, refused files). */
  readonly version: string | null;
  /**
   * Every independent error of the file (located: file, line, column, key
   * path), the first with the others in `also`; null when not refused.
   */
  readonly refusal: Refusal | null;
  /** Ids this resource depends on, sorted: SQL relations, datasets, relationship targets, used models. */
  readonly dependencies: readonly string[];
  /**
   * `blocked`: the refused files (as the operator finds them, sorted) that
   * may declare what it refers to, directly or through a blocked
   * dependency; empty otherwise.
   */
  readonly blockedBy: readonly string[];
}

/** ProjectGraph edge: from a consumer to its dependency. */
export interface DependencyEdge {
  readonly from: string;
  readonly to: string;
}

export interface ProjectOptions {
  /**
   * The project folder as the operator named it (e.g. `retail`), joined
   * before each file's relative path in refusals; absent, paths stay relative
   * to the project folder.
   */
  readonly root?: string;
}

/** The latest publication of a resource, as a ledger holds it (see `resourceNotFound`). */
export interface PublishedResource {
  readonly kind: string;
  readonly version: string;
  readonly position: number;
}

/** What `select` answers for one resource id. */
export type ResourceSelection =
  | { readonly kind: 'selected'; readonly outcome: ResourceOutcome }
  /** The project has refused files and the id is not one of them: report the project as a whole. */
  | { readonly kind: 'project_invalid' };

type ContractBuilt = BuiltContent<ProjectionPayload['content']>;

interface Entry {
  readonly file: number;
  readonly path: string;
  readonly display: string;
  node: YamlNode | null;
  /** What the file says it is, as far as it can be read: used when it is refused. */
  declared: { readonly id?: string; readonly name?: string; readonly kind?: ResourceKind };
  resource: ValidatedResource | null;
  refusal: Refusal | null;
  built: ContractBuilt | null;
  dependencies: readonly string[];
  blocked: boolean;
  /** The refused files that block it (see `ResourceOutcome.blockedBy`). */
  blockedBy: ReadonlySet<string>;
}

const compareBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/**
 * A contract project validated as one graph: every file parsed strictly and
 * validated against its kind's schema, ids unique, every reference resolved
 * through the ReferenceContext, every model's SQL parsed (in one batch) and
 * projected, dependency cycles refused. Projections are sealed from here only.
 *
 * Every file is checked: a refused file stops only the resources whose
 * references could mean it (they are `blocked`), so one run reports every
 * independent error (docs/contracts.md#reading-an-error). Projections are
 * sealed only from a complete graph (every file read and validated, ids unique).
 */
export class ContractProject {
  readonly #entries: readonly Entry[];
  readonly #byId: ReadonlyMap<string, Entry>;
  readonly #graphComplete: boolean;
  /** The project folder as the operator named it, when given. */
  readonly #root: string | undefined;

  private constructor(entries: readonly Entry[], graphComplete: boolean, root: string | undefined) {
    this.#entries = entries;
    this.#graphComplete = graphComplete;
    this.#root = root;
    const byId = new Map<string, Entry>();
    for (const entry of entries) if (entry.resource !== null) byId.set(entry.resource.id, entry);
    this.#byId = byId;
  }

  static async fromFiles(
    files: readonly ProjectFile[],
    parser: SqlParser,
    options: ProjectOptions = {},
  ): Promise<ContractProject> {
    const refuseIn: RefuseIn = (entry, error) => {
      if (!(error instanceof Refusal) || error.category === 'internal') return toRefusal(error);
      return placeEach(error, (one) => positioned(one, entry.node).at({ path: entry.display }));
    };
    const entries = readEntries(files, options, refuseIn);
    refuseDuplicateIds(entries, refuseIn);
    const graphComplete = entries.every((entry) => entry.refusal === null);
    const checked = entries.filter((entry) => entry.refusal === null);
    const resources = checked.map((entry) => entry.resource as ValidatedResource);
    const references = referencesAround(
      resources,
      entries.filter((entry) => entry.refusal !== null),
    );
    const context = await buildContext(references, resources, parser);
    buildEntries(checked, references, context, refuseIn);
    refuseCycles(entries, refuseIn);
    blockDependents(entries);
    return new ContractProject(entries, graphComplete, options.root);
  }

  /** The ids of the resources whose project-local name is `name` (files that could be read), sorted. */
  idsNamed(name: string): string[] {
    return this.#entries
      .flatMap((entry) => (entry.resource?.name === name ? [entry.resource.id] : []))
      .sort(compareCodeUnits);
  }

  /**
   * The refusal for an id no file of the project declares (the operator's
   * own `--resource`), placed at the project folder: the id, and the nearest
   * id the project declares as a "did you mean", else how to list its ids.
   * With `published`, the latest entry the ledger holds of this id: its file
   * left the project (deleted, or its id renamed), which the hint says with
   * the way out, as the absent listing of a whole run does
   * (docs/contracts.md#a-resource-that-leaves-the-project).
   */
  resourceNotFound(id: string, published?: PublishedResource): Refusal {
    const resources = this.#entries.flatMap((entry) => (entry.resource === null ? [] : [entry.resource]));
    // A project-local name where an id goes is the usual slip: name the ids it stands for.
    const named = this.idsNamed(id);
    const near = didYouMean(
      id,
      resources.map((resource) => resource.id),
    );
    const listing = `'sealkit contract validate ${this.#root ?? 'DIR'}' lists the id of every resource`;
    const hint =
      named.length > 0
        ? `'${id}' is the name of ${named.join(' and ')}; --resource takes an id`
        : published !== undefined
          ? `the ledger holds ${id} (${published.kind} ${published.version}, published at position ${published.position}), but no file of the project has this id (deleted or renamed): restore its file to publish it again (a change needs a version above ${published.version}); otherwise there is nothing to publish, and the ledger keeps it as it is`
          : `no resource of the project has the id '${id}'; ${near ?? listing}`;
    return refuseContract('contract_resource_not_found', {
      role: 'project',
      ...(this.#root === undefined ? {} : { location: { path: this.#root } }),
      hint,
    });
  }

  /** The project folder as the operator named it (`ProjectOptions.root`), where a refusal about the whole project points. */
  get root(): string | undefined {
    return this.#root;
  }

  /**
   * A refusal about resource `id` placed in its file: the path as the
   * operator gave it and, when `pointer` names a key the file holds (such
   * as `contract.version`), that key's line and column.
   */
  placeInFile(id: string, refusal: Refusal, pointer?: string, hint?: string): Refusal {
    const entry = this.#byId.get(id);
    if (entry === undefined) return refusal;
    const node =
      pointer === undefined || entry.node === null
        ? undefined
        : nodeAt(entry.node, segmentsOf(pointer) ?? [], true);
    return refusal.at(
      {
        path: entry.display,
        ...(node === undefined || pointer === undefined
          ? {}
          : { line: node.at.line, column: node.at.column, pointer }),
      },
      hint,
    );
  }

  /**
   * Where a change of the resource's projection is written in its file, as
   * a pointer for `placeInFile` (`content.fields[amount].type` →
   * `fields[4].type`), or undefined when the file does not have it.
   */
  authoredPointer(id: string, changePath: string): string | undefined {
    return authoredPointerOf(this.#byId.get(id)?.node ?? null, changePath);
  }

  /** Per-file outcomes in file order. */
  get outcomes(): readonly ResourceOutcome[] {
    return this.#entries.map((entry) => {
      const resource = entry.resource;
      const status: OutcomeStatus = entry.refusal !== null ? 'refused' : entry.blocked ? 'blocked' : 'valid';
      const version =
        resource !== null && resource.kind !== 'Dashboard' ? (resource.contract?.version ?? null) : null;
      return {
        file: entry.file,
        path: entry.path,
        displayPath: entry.display,
        status,
        kind: resource?.kind ?? entry.declared.kind ?? null,
        id: resource?.id ?? null,
        version,
        refusal: entry.refusal,
        dependencies: entry.dependencies,
        blockedBy: [...entry.blockedBy].sort(compareBytes),
      };
    });
  }

  /** True when every file is valid. */
  get valid(): boolean {
    return this.#graphComplete && this.#entries.every((entry) => entry.refusal === null && !entry.blocked);
  }

  /**
   * Refuses a project that is not valid, for commands that need all of it
   * (publish, affected): `contract_project_invalid` first, then every refused
   * file's errors, located, so the refusal says which files to fix.
   */
  requireValid(): void {
    if (this.valid) return;
    const refusals = this.#entries.flatMap((entry) => (entry.refusal === null ? [] : [entry.refusal]));
    const internal = refusals.find((refusal) => refusal.category === 'internal');
    if (internal !== undefined) throw internal;
    throw refuseAll([refuseContract('contract_project_invalid', { role: 'project' }), ...refusals]);
  }

  /**
   * The outcome for one resource id, for callers that work on one resource
   * (`contract project --resource`): a refused resource is refused with its
   * own errors; an id no file declares is refused with the nearest id; when
   * other files were refused, a resource that is not itself refused cannot be
   * trusted (its references may mean a refused file) and the whole project is
   * reported instead.
   */
  select(id: string): ResourceSelection {
    const outcomes = this.outcomes;
    const outcome = outcomes.find(
      (candidate) =>
        candidate.id === id ||
        (candidate.status === 'refused' && this.#entries[candidate.file - 1]?.declared.id === id),
    );
    if (outcome?.refusal !== null && outcome?.refusal !== undefined) throw outcome.refusal;
    // Any refused file, not only one that left the graph incomplete: a file
    // refused later (an SQL reference, an aggregation) may be a dataset this
    // resource reads, and a digest sealed over it would be trusted.
    if (!this.valid) return { kind: 'project_invalid' };
    if (outcome === undefined) {
      throw this.resourceNotFound(id);
    }
    if (outcome.status === 'blocked') return { kind: 'project_invalid' };
    if (outcome.kind === 'Dashboard') {
      // Its own dependencies are what it reads: the resources with a projection a user most likely meant.
      const read = outcome.dependencies.slice(0, 3).join(', ');
      throw refuseContract('contract_resource_not_contract_bearing', {
        role: 'project',
        location: { path: outcome.displayPath },
        hint:
          read === ''
            ? 'choose a Source, Model or SemanticModel'
            : `choose a Source, Model or SemanticModel, such as one this dashboard reads: ${read}`,
      });
    }
    // At the id that declares the resource, as other refusals about a whole
    // resource are: a file's first line may be a comment.
    if (outcome.version === null)
      throw this.placeInFile(
        id,
        refuseContract('contract_version_missing', {
          role: 'projection',
          field: 'contract',
          location: { path: outcome.displayPath },
          hint: 'add contract: {version: ..., compatibility: ...} to project or publish this resource',
        }),
        'id',
      );
    return { kind: 'selected', outcome };
  }

  /**
   * Seals the projection of one resource. `fallback` is the explicit
   * constructor fallback for resources without authored contract metadata;
   * when the resource has metadata, the fallback must match it.
   */
  seal(id: string, fallback?: ContractFallback): SealedProjection {
    if (!this.#graphComplete) throw refuseContract('contract_project_invalid', { role: 'project' });
    const entry = this.#byId.get(id);
    if (entry === undefined || entry.resource === null) throw this.resourceNotFound(id);
    if (entry.refusal !== null) throw entry.refusal;
    const resource = entry.resource;
    if (resource.kind === 'Dashboard' || entry.built === null) {
      throw refuseContract('contract_resource_not_contract_bearing', { role: 'project' });
    }
    return constructProjection(resource, entry.built, fallback);
  }

  /** Seals and canonicalizes: the canonical bytes and their SHA-256. */
  project(id: string, fallback?: ContractFallback): CanonicalProjection {
    return canonicalizeProjection(this.seal(id, fallback));
  }

  /** Edges of the validated graph (consumer → dependency), sorted; only from valid resources. */
  dependencyEdges(): readonly DependencyEdge[] {
    const edges: DependencyEdge[] = [];
    for (const entry of this.#entries) {
      if (entry.resource === null || entry.refusal !== null || entry.blocked) continue;
      for (const to of entry.dependencies) edges.push({ from: entry.resource.id, to });
    }
    return edges.sort((a, b) => compareBytes(a.from, b.from) || compareBytes(a.to, b.to));
  }
}

/** A refusal raised while reading or building an entry, placed in its file. */
type RefuseIn = (entry: Entry, error: unknown) => Refusal;

/** Every file read and validated on its own, in path order; a refusal stays with its entry. */
function readEntries(files: readonly ProjectFile[], options: ProjectOptions, refuseIn: RefuseIn): Entry[] {
  const sorted = [...files].sort((a, b) => compareBytes(a.path, b.path));
  return sorted.map((file, index) => {
    const entry: Entry = {
      file: index + 1,
      path: file.path,
      display: options.root === undefined ? file.path : join(options.root, file.path),
      node: null,
      declared: {},
      resource: null,
      refusal: null,
      built: null,
      dependencies: [],
      blocked: false,
      blockedBy: new Set(),
    };
    try {
      const document = readResourceDocument(file.bytes);
      entry.node = document.node;
      entry.declared = declaredOf(document.value);
      entry.resource = validateLocated(document.value, document.node, document.faults);
    } catch (error: unknown) {
      entry.refusal = refuseIn(entry, error);
    }
    return entry;
  });
}

/**
 * Ids identify resources project-wide: a repeated id is refused in every file
 * that declares it, a refused file too when its id can be read (a well-formed
 * id as far as its plain value says), so a collision is reported in the same
 * run as the file's other errors and the other file is never called valid.
 */
function refuseDuplicateIds(entries: readonly Entry[], refuseIn: RefuseIn): void {
  const byId = new Map<string, Entry[]>();
  for (const entry of entries) {
    const id = entry.resource?.id ?? entry.declared.id;
    if (id === undefined || (entry.resource === null && !isResourceId(id))) continue;
    const list = byId.get(id) ?? [];
    list.push(entry);
    byId.set(id, list);
  }
  for (const list of byId.values()) {
    if (list.length < 2) continue;
    for (const entry of list) {
      const others = list.filter((other) => other !== entry).map((other) => other.display);
      const kind = entry.resource?.kind ?? entry.declared.kind;
      const refusal = refuseIn(
        entry,
        refuseContract('contract_duplicate_id', {
          role: kind === undefined ? 'resource' : ROLE_OF_KIND[kind],
          field: 'id',
          location: { pointer: 'id' },
          hint: `the same id is declared in ${others.join(', ')}`,
        }),
      );
      entry.refusal = entry.refusal === null ? refusal : refuseAll(inFileOrder([entry.refusal, refusal]));
    }
  }
}

/**
 * References among the checked resources; what the refused files declare
 * (ids, names, or neither) is known too, so a reference to one of them is
 * blocked rather than unknown. A refused file whose id or name cannot be
 * read (`nme: orders`) could be what any reference means: every reference
 * the checked resources do not answer is blocked then, so the root cause
 * is reported alone and never preceded by a reference error it caused.
 */
function referencesAround(
  resources: readonly ValidatedResource[],
  refusedEntries: readonly Entry[],
): ReferenceContext {
  const declaring = (key: 'id' | 'name') => {
    const files = new Map<string, string[]>();
    for (const entry of refusedEntries) {
      const value = entry.declared[key];
      if (value !== undefined) files.set(value, [...(files.get(value) ?? []), entry.display]);
    }
    return files;
  };
  return new ReferenceContext(resources, {
    ids: declaring('id'),
    names: declaring('name'),
    unidentified: refusedEntries.flatMap((entry) =>
      entry.declared.id === undefined || entry.declared.name === undefined ? [entry.display] : [],
    ),
  });
}

/** The references, and every model's SQL parsed in one batch. */
async function buildContext(
  references: ReferenceContext,
  resources: readonly ValidatedResource[],
  parser: SqlParser,
): Promise<BuildContext> {
  const sqlTexts = [
    ...new Set(resources.flatMap((resource) => (resource.kind === 'Model' ? [resource.sql] : []))),
  ];
  const serialized = await parseAll(parser, sqlTexts);
  const parsedByText = new Map(sqlTexts.map((text, index) => [text, serialized[index]]));
  return { references, parsedSql: (text) => parsedByText.get(text) };
}

/**
 * Each checked entry's content and dependencies. Every fault of an entry is
 * collected (docs/contracts.md#reading-an-error), and the entry is refused
 * with all of them; an entry whose only trouble is a reference that could
 * mean a refused file is blocked, not refused.
 */
function buildEntries(
  checked: readonly Entry[],
  references: ReferenceContext,
  context: BuildContext,
  refuseIn: RefuseIn,
): void {
  for (const entry of checked) {
    const resource = entry.resource as ValidatedResource;
    references.takeBlocked();
    const blockedBy = new Set<string>();
    const faults = new Faults(() => {
      const files = references.takeBlocked();
      for (const file of files) blockedBy.add(file);
      return files.length > 0;
    });
    let dependencies: readonly string[] = [];
    let built: ContractBuilt | null = null;
    try {
      guardRefusals(() =>
        faults.check(() => {
          if (resource.kind === 'Dashboard') {
            dependencies = checkDashboard(resource, references, faults);
            return;
          }
          built =
            resource.kind === 'Source'
              ? buildSourceContent(resource, faults)
              : resource.kind === 'Model'
                ? buildModelContent(resource, context, faults)
                : buildSemanticModelContent(resource, context, faults);
          dependencies = built.dependencies;
        }),
      );
    } catch (error: unknown) {
      // A bug (an internal refusal): the entry is refused with it alone.
      entry.refusal = refuseIn(entry, error);
      continue;
    }
    if (faults.found.length > 0)
      entry.refusal = refuseAll(inFileOrder(faults.found.map((one) => refuseIn(entry, one))));
    else if (faults.blocked) {
      entry.blocked = true;
      entry.blockedBy = blockedBy;
    } else {
      entry.built = built;
      entry.dependencies = dependencies;
    }
  }
}

/**
 * Refusals placed in one file, in the order they are written there (line,
 * then column); those at one place keep the order they were found in.
 */
function inFileOrder(refusals: readonly Refusal[]): Refusal[] {
  const flat = refusals.flatMap((refusal) => [refusal.withOthers([], 0), ...refusal.also]);
  return flat
    .map((refusal, index) => ({ refusal, index }))
    .sort(
      (a, b) =>
        (a.refusal.location?.line ?? 0) - (b.refusal.location?.line ?? 0) ||
        (a.refusal.location?.column ?? 0) - (b.refusal.location?.column ?? 0) ||
        a.index - b.index,
    )
    .map((entry) => entry.refusal);
}

/**
 * A resource that depends on a blocked one is blocked too: what it was
 * checked against was itself not checked completely.
 */
function blockDependents(entries: readonly Entry[]): void {
  const blocked = new Map(
    entries.flatMap((entry) =>
      entry.blocked && entry.resource !== null ? [[entry.resource.id, entry]] : [],
    ),
  );
  let changed = blocked.size > 0;
  while (changed) {
    changed = false;
    for (const entry of entries) {
      if (entry.blocked || entry.refusal !== null || entry.resource === null) continue;
      const through = entry.dependencies.flatMap((id) => blocked.get(id) ?? []);
      if (through.length === 0) continue;
      entry.blocked = true;
      // Blocked by what blocks its dependencies: the refused files, never a file that is itself valid.
      entry.blockedBy = new Set(through.flatMap((dependency) => [...dependency.blockedBy]));
      blocked.set(entry.resource.id, entry);
      changed = true;
    }
  }
}

const CYCLE_KEY: { readonly [K in ResourceKind]: string } = {
  Source: 'id',
  Model: 'sql',
  SemanticModel: 'model',
  Dashboard: 'uses',
};

function cycleHint(id: string, others: readonly string[]): string {
  return others.length === 0 ? `${id} refers to itself` : `${id} is on a cycle with ${others.join(', ')}`;
}

/** What a refused file declares, as far as its plain value says. */
function declaredOf(value: unknown): Entry['declared'] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const record = value as { readonly id?: unknown; readonly name?: unknown; readonly kind?: unknown };
  return {
    ...(typeof record.id === 'string' ? { id: record.id } : {}),
    ...(typeof record.name === 'string' ? { name: record.name } : {}),
    ...((RESOURCE_KINDS as readonly unknown[]).includes(record.kind)
      ? { kind: record.kind as ResourceKind }
      : {}),
  };
}

/** Every model's SQL in one parser call; a parser that fails or answers badly is unavailable. */
async function parseAll(
  parser: SqlParser,
  texts: readonly string[],
): Promise<readonly (string | undefined)[]> {
  if (texts.length === 0) return [];
  return guardRefusalsAsync(
    async () => {
      const out = await parser.serialize(texts);
      if (out.length !== texts.length) throw new Error('parser answered a different number of texts');
      return out;
    },
    () => refuseContract('contract_sql_parser_unavailable', { role: 'sql' }),
  );
}

/** Resources on a dependency cycle (self-references included) are refused. */
function refuseCycles(entries: readonly Entry[], refuseIn: RefuseIn): void {
  const byId = new Map<string, Entry>();
  for (const entry of entries)
    if (entry.resource !== null && entry.refusal === null && !entry.blocked)
      byId.set(entry.resource.id, entry);
  // Tarjan's strongly connected components, iterative so deep chains cannot overflow the stack.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  // Each resource on a cycle → the other members of its cycle (none for a self-reference).
  const onCycle = new Map<string, readonly string[]>();
  for (const start of byId.keys()) {
    if (index.has(start)) continue;
    const work: { id: string; next: number }[] = [{ id: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter);
    counter += 1;
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { id: string; next: number };
      const deps = byId.get(frame.id)?.dependencies ?? [];
      if (frame.next < deps.length) {
        const to = deps[frame.next] as string;
        frame.next += 1;
        if (to === frame.id && !onCycle.has(to)) onCycle.set(to, []);
        if (!byId.has(to)) continue;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter);
          counter += 1;
          stack.push(to);
          onStack.add(to);
          work.push({ id: to, next: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.id, Math.min(low.get(frame.id) as number, index.get(to) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined)
        low.set(parent.id, Math.min(low.get(parent.id) as number, low.get(frame.id) as number));
      if (low.get(frame.id) === index.get(frame.id)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.id);
        if (component.length > 1)
          for (const id of component) onCycle.set(id, component.filter((other) => other !== id).sort());
      }
    }
  }
  for (const [id, others] of onCycle) {
    const entry = byId.get(id);
    if (entry === undefined || entry.resource === null || entry.refusal !== null) continue;
    entry.refusal = refuseIn(
      entry,
      refuseContract('contract_reference_cycle', {
        role: ROLE_OF_KIND[entry.resource.kind],
        // Where the dependencies of each kind are written.
        location: { pointer: CYCLE_KEY[entry.resource.kind] },
        hint: cycleHint(id, others),
      }),
    );
  }
}
