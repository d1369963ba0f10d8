import { Dir } from '../../core/fs/index.js';
import type { Refusal } from '../../core/refusal/index.js';
import type { ConfigOrigin, DestinationConfig, DistributorConfig, PipelineConfig } from '../config/types.js';
import { refuseDistributor } from '../refusals.js';

/**
 * Where a destination writes, as identities that compare truthfully:
 * directories by device and inode (a root and every directory above it,
 * found by walking its path from `/`), S3 by store, bucket and prefix.
 */
export type DestinationPlace =
  | {
      readonly kind: 'local';
      /** `dev:ino` of the root. */
      readonly root: string;
      /** `dev:ino` of every directory above the root, `/` first. */
      readonly above: readonly string[];
      /** The explicit `work_dir`, when configured and it opens. */
      readonly work?: { readonly dir: string; readonly above: readonly string[] };
    }
  | { readonly kind: 's3'; readonly store: string; readonly bucket: string; readonly prefix: string };

/** One destination of the configuration with its place; `place` is undefined when a root does not open. */
export interface PlacedDestination {
  readonly pipeline: PipelineConfig;
  readonly destination: DestinationConfig;
  readonly place: DestinationPlace | undefined;
}

/**
 * Every destination of the configuration, placed. A local root (or work
 * directory) that does not open has no place here: the destination is
 * refused on its own when the run opens it.
 */
export function placeDestinations(config: DistributorConfig): PlacedDestination[] {
  return config.pipelines.flatMap((pipeline) =>
    pipeline.destinations.map((destination) => ({
      pipeline,
      destination,
      place: placeOf(destination),
    })),
  );
}

function placeOf(destination: DestinationConfig): DestinationPlace | undefined {
  if (destination.kind === 's3') {
    return {
      kind: 's3',
      store: storeOf(destination.endpoint),
      bucket: destination.bucket,
      prefix: destination.prefix,
    };
  }
  const root = directoryChain(destination.root);
  if (root === undefined) return undefined;
  const work = destination.work_dir === undefined ? undefined : directoryChain(destination.work_dir);
  return {
    kind: 'local',
    root: root.self,
    above: root.above,
    ...(work === undefined ? {} : { work: { dir: work.self, above: work.above } }),
  };
}

/** The identities of an absolute directory path and of every directory above it, each opened no-follow. */
function directoryChain(path: string): { self: string; above: string[] } | undefined {
  const parts = path.split('/').filter((part) => part !== '');
  const keys = existingChain(path);
  if (keys.length !== parts.length + 1) return undefined;
  const self = keys.pop();
  return self === undefined ? undefined : { self, above: keys };
}

/**
 * The identities of the directories of an absolute path that exist, from
 * `/` down to the first one that does not open as a directory (no-follow):
 * all of them when the whole path does.
 */
function existingChain(path: string): string[] {
  const parts = path.split('/').filter((part) => part !== '');
  const keys: string[] = [];
  for (let depth = 0; depth <= parts.length; depth += 1) {
    let dir: Dir;
    try {
      dir = Dir.openForLookup(`/${parts.slice(0, depth).join('/')}`);
    } catch {
      return keys;
    }
    try {
      const stat = dir.stat();
      if (stat.type !== 'directory') return keys;
      keys.push(`${stat.dev}:${stat.ino}`);
    } catch {
      return keys;
    } finally {
      dir.close();
    }
  }
  return keys;
}

/**
 * An endpoint as one store: scheme, host and port, lowercase, without a
 * trailing slash; AWS by default. Every spelling of this machine
 * (`localhost`, `127.0.0.1`, `[::1]`, `[::ffff:127.0.0.1]`) is one host: a
 * store on this machine is one store whichever name reaches it.
 */
export function storeOf(endpoint: string | undefined): string {
  if (endpoint === undefined) return 'aws';
  try {
    const url = new URL(endpoint);
    const host = isLoopback(url.hostname) ? 'loopback' : url.hostname;
    const port = url.port === '' ? '' : `:${url.port}`;
    return `${url.protocol}//${host}${port}${url.pathname.replace(/\/+$/, '')}`.toLowerCase();
  } catch {
    return endpoint;
  }
}

function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true;
  // The URL parser writes an IPv4-mapped 127.x address in hex: ::ffff:7f00:1.
  return host === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host);
}

/** Whether two key prefixes share a key: equal, one empty (the bucket root), or one a folder of the other. */
function prefixesOverlap(a: string, b: string): boolean {
  return a === b || a === '' || b === '' || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/**
 * Every pair of destinations that would publish to the same place (roots
 * equal or nested, S3 prefixes of one bucket that overlap), and every
 * `work_dir` that lies inside a destination root or is another
 * destination's work area too. Two destinations at one root publish to the
 * same bundle paths, and one `.distributor.json` can describe only one of
 * them: the first run reports one destination published and every later run
 * reports the other `skipped_same` without ever writing its outputs. Pure
 * over the places; each refusal is located at the later destination's
 * `root:`, `work_dir:` or `prefix:` and names the other.
 */
export function overlapRefusals(placed: readonly PlacedDestination[]): Refusal[] {
  const refusals: Refusal[] = [];
  for (const [index, later] of placed.entries()) {
    const place = later.place;
    if (place === undefined) continue;
    for (const earlier of placed.slice(0, index)) {
      const relation = earlier.place === undefined ? undefined : rootRelation(earlier.place, place);
      if (relation !== undefined) refusals.push(overlap(later, earlier, relation));
    }
    if (place.kind !== 'local' || place.work === undefined || place.work.dir === place.root) continue;
    for (const [otherIndex, other] of placed.entries()) {
      const otherPlace = other.place;
      if (otherPlace?.kind !== 'local') continue;
      const inside = otherPlace.root === place.work.dir || place.work.above.includes(otherPlace.root);
      // Reported once, at the later of the two.
      const shared = otherIndex < index && otherPlace.work?.dir === place.work.dir && !inside;
      if (inside) refusals.push(overlap(later, other, other === later ? 'work_in_own_root' : 'work_in_root'));
      else if (shared) refusals.push(overlap(later, other, 'work_shared'));
    }
  }
  return refusals;
}

type Relation = 'same' | 'inside' | 'contains' | 'work_in_root' | 'work_in_own_root' | 'work_shared';

function rootRelation(a: DestinationPlace, b: DestinationPlace): Relation | undefined {
  if (a.kind === 's3' && b.kind === 's3') {
    if (a.store !== b.store || a.bucket !== b.bucket || !prefixesOverlap(a.prefix, b.prefix))
      return undefined;
    if (a.prefix === b.prefix) return 'same';
    return b.prefix.startsWith(`${a.prefix}/`) || a.prefix === '' ? 'inside' : 'contains';
  }
  if (a.kind === 'local' && b.kind === 'local') {
    if (a.root === b.root) return 'same';
    if (b.above.includes(a.root)) return 'inside';
    if (a.above.includes(b.root)) return 'contains';
  }
  return undefined;
}

/**
 * Every local destination whose root or `work_dir` is a source root or lies
 * inside one (of any pipeline of the file). Published bundles keep their
 * manifest.json, so the next run would discover them below the source root
 * and publish them again, one level deeper each night. Located at the
 * destination's `root:` or `work_dir:`; names the pipeline whose source
 * root it is inside. A root or `work_dir` that does not exist yet is judged
 * by the folders of its path that do: one to be made inside a source root
 * is refused now, not once the operator has made it as the refusal of a
 * missing root advises.
 */
export function sourceOverlapRefusals(
  config: DistributorConfig,
  placed: readonly PlacedDestination[],
): Refusal[] {
  const sources = config.pipelines.flatMap((pipeline) => {
    const chain = directoryChain(pipeline.source.root);
    return chain === undefined ? [] : [{ pipeline, self: chain.self }];
  });
  const refusals: Refusal[] = [];
  for (const at of placed) {
    const destination = at.destination;
    if (destination.kind !== 'local') continue;
    const place = at.place?.kind === 'local' ? at.place : undefined;
    const rootChain = place === undefined ? existingChain(destination.root) : [...place.above, place.root];
    const workChain =
      place?.work !== undefined
        ? [...place.work.above, place.work.dir]
        : destination.work_dir === undefined
          ? []
          : existingChain(destination.work_dir);
    for (const source of sources) {
      const what = rootChain.includes(source.self)
        ? 'this root'
        : workChain.includes(source.self)
          ? 'its work_dir'
          : undefined;
      if (what === undefined) continue;
      const origin = placeOrigin(at.destination, what === 'this root' ? 'root' : 'work_dir');
      const { pointer, ...where } = origin ?? { pointer: undefined };
      refusals.push(
        refuseDistributor('destination_inside_source', {
          role: 'config',
          ...(origin === undefined
            ? {}
            : { location: { ...where, ...(pointer === undefined || pointer === '' ? {} : { pointer }) } }),
          hint: `${what} lies inside the source root of pipeline '${source.pipeline.id}' (${source.pipeline.source.shown ?? source.pipeline.source.root}); publish outside it`,
        }),
      );
      break;
    }
  }
  return refusals;
}

/** An S3 destination's place is its bucket and prefix: the same advice in its own words. */
const S3_HINTS: { readonly [R in 'same' | 'inside' | 'contains']: (other: string) => string } = {
  same: (other) => `the same bucket and prefix as ${other}; give each destination a prefix of its own`,
  inside: (other) =>
    `this prefix lies inside the prefix of ${other} in the same bucket; use sibling prefixes instead`,
  contains: (other) =>
    `this prefix contains the prefix of ${other} in the same bucket; use sibling prefixes instead`,
};

const HINTS: { readonly [R in Relation]: (other: string) => string } = {
  same: (other) => `the same root as ${other}; give each destination a root of its own`,
  inside: (other) => `this root lies inside the root of ${other}; use sibling roots instead`,
  contains: (other) => `this root contains the root of ${other}; use sibling roots instead`,
  work_in_root: (other) =>
    `its work_dir lies inside the root of ${other}, where it would be published; keep it outside every root`,
  work_in_own_root: () =>
    'its work_dir lies inside its own root, where it would be published; keep it outside every root',
  work_shared: (other) => `its work_dir is also the work area of ${other}; give each destination its own`,
};

/**
 * The key that says where a destination publishes, as the refusal about its
 * place points at it (docs/distributor.md#reading-an-error): a local
 * `root:` or `work_dir:`, an S3 `prefix:`; the entry when it is not written
 * (a configuration built in code has no origins at all).
 */
function placeOrigin(destination: DestinationConfig, what: 'root' | 'work_dir'): ConfigOrigin | undefined {
  if (destination.kind === 's3') return destination.prefix_origin ?? destination.origin;
  const key = what === 'root' ? destination.root_origin : destination.work_dir_origin;
  return key ?? destination.origin;
}

const WORK_RELATIONS: ReadonlySet<Relation> = new Set(['work_in_root', 'work_in_own_root', 'work_shared']);

function overlap(at: PlacedDestination, other: PlacedDestination, relation: Relation): Refusal {
  const origin = placeOrigin(at.destination, WORK_RELATIONS.has(relation) ? 'work_dir' : 'root');
  const { pointer, ...place } = origin ?? { pointer: undefined };
  const otherPointer = other.destination.origin?.pointer;
  const named = `destination '${other.destination.id}' of pipeline '${other.pipeline.id}'${
    otherPointer === undefined || otherPointer === '' ? '' : ` (${otherPointer})`
  }`;
  return refuseDistributor('destination_roots_overlap', {
    role: 'config',
    ...(origin === undefined
      ? {}
      : { location: { ...place, ...(pointer === undefined || pointer === '' ? {} : { pointer }) } }),
    hint:
      at.destination.kind === 's3' &&
      (relation === 'same' || relation === 'inside' || relation === 'contains')
        ? S3_HINTS[relation](named)
        : HINTS[relation](named),
    details: {
      relation,
      destination: { pipeline_id: at.pipeline.id, destination_id: at.destination.id },
      other: { pipeline_id: other.pipeline.id, destination_id: other.destination.id },
    },
  });
}
