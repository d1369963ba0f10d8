import { join } from 'node:path';
import { refuseFs } from '../../core/fs/index.js';
import { Refusal, type RefusalSpec, refuseInternal } from '../../core/refusal/index.js';
import type { DryRunCaveat } from '../backend.js';
import type { DestinationConfig, PipelineConfig } from '../config/types.js';
import { STATE_FILE } from '../model/state.js';
import type { Instant } from '../model/types.js';
import { noOutputsHint } from '../plan/outputs.js';
import type { EntryKind, Outcome, PlanItem, ReplaceReason, RunFailure, RunPlan } from '../plan/types.js';
import { type DistributorReasonCode, refuseDistributor } from '../refusals.js';
import { refusalOrigin } from './refusal-origin.js';

/** One line of the run's report: what happened to one bundle at one destination. */
export interface ItemOutcome {
  readonly pipeline_id: string;
  readonly destination_id: string;
  readonly bundle_dir: string;
  readonly bundle_id: string | null;
  readonly outcome: Outcome;
  readonly reason_code?: DistributorReasonCode;
  /** `replaced` only: why a bundle whose manifest did not change was published again. */
  readonly reason?: ReplaceReason;
  /** Files written (published/replaced), excluding `.distributor.json`. */
  readonly outputs?: number;
  /** `conflict_different_id` only: the id of the bundle the destination holds (`bundle_id` is the source's). */
  readonly destination_bundle_id?: string;
  /** `conflict_other_destination` only: the pipeline and destination the destination's state names. */
  readonly published_by?: { readonly pipeline_id: string; readonly destination_id: string };
  /** `output_too_large` and `output_key_too_long` only: the output (its path in the bundle) over the limit. */
  readonly output_path?: string;
  /** `destination_unlisted_entry` and `destination_incomplete`: the first entry concerned (its path in the bundle). */
  readonly entry_path?: string;
  /**
   * What stands at `entry_path` when it is not a regular file (a local
   * destination): `folder`, `symlink` or `special` (a FIFO, a socket, a
   * device). `destination_incomplete`: it stands where sealkit published a
   * file; `destination_unlisted_entry`: the entry itself.
   */
  readonly entry_kind?: EntryKind;
  /**
   * `destination_incomplete`: how many outputs the state lists are gone or
   * not as published; `destination_unlisted_entry`: how many entries
   * sealkit did not write are there. `entry_path` is the first of them.
   */
  readonly entry_count?: number;
  /** `destination_incomplete` only: that output is a page sealkit rendered (kind `generated`). */
  readonly entry_generated?: true;
  /**
   * `destination_incomplete` only: the first entry at the bundle path that
   * sealkit did not write, when there are such entries besides the outputs
   * (`unlisted_count` of them): they are to be moved away first.
   */
  readonly unlisted_path?: string;
  readonly unlisted_count?: number;
  /** `destination_incomplete` only: the size that output has, when it is there with another size than the state records. */
  readonly entry_size?: number;
  /** `destination_incomplete` only, under `--checksum`: that output has the recorded size, but other bytes. */
  readonly entry_sha256_differs?: true;
  /**
   * `created` of the published bundle and of the source bundle: `skipped_newer`
   * (the published one is later) and `replaced` with reason `same_files`
   * (the source's is later, over the same files).
   */
  readonly destination_created?: Instant;
  readonly source_created?: Instant;
  /**
   * A conflict or refusal of this destination, located at the destination in
   * the configuration (docs/distributor.md#reading-an-error). Absent for
   * `run_aborted` and for a bundle that failed validation (see `failures`;
   * the CLI's `--json` copies that refusal's fields onto its outcomes, and
   * gives a `run_aborted` one its code's fields, with what stopped it).
   */
  readonly refusal?: Refusal;
}

export type OutcomeCounts = { readonly [O in Outcome]: number };

export interface RunReport {
  /** `ok` when every outcome is published, replaced or skipped; `refused` otherwise (exit 2). */
  readonly status: 'ok' | 'refused';
  readonly dry_run: boolean;
  /** True when a validation, discovery or planning failure stopped every write. */
  readonly aborted: boolean;
  readonly failures: readonly RunFailure[];
  readonly counts: OutcomeCounts;
  readonly outcomes: readonly ItemOutcome[];
  /** The plan the run applied (or, under --dry-run, would apply). */
  readonly plan: RunPlan;
  /**
   * `--dry-run` only: what a real run checks at a destination before its
   * first write there that the dry run leaves out, because it takes a
   * write (docs/distributor.md#commands); one entry per check and
   * destination the plan writes to.
   */
  readonly unchecked?: readonly UncheckedByDryRun[];
  /**
   * Destinations where this run waited for another run (`--wait`: a local
   * destination's lock, a bundle another run held at S3), and how long;
   * absent when it waited for none. What stayed held through the wait is
   * refused `destination_locked` as without it.
   */
  readonly waited?: readonly DestinationWait[];
}

/** How long a run waited for another run at one destination (milliseconds). */
export interface DestinationWait {
  readonly pipeline_id: string;
  readonly destination_id: string;
  readonly waited_ms: number;
}

/** A check a dry run left out at one destination, with what read-only requests told of it. */
export interface UncheckedByDryRun extends DryRunCaveat {
  readonly pipeline_id: string;
  readonly destination_id: string;
}

export const OUTCOMES: readonly Outcome[] = [
  'published',
  'replaced',
  'skipped_same',
  'skipped_newer',
  'conflict',
  'refused',
];

/** The outcome a plan item predicts, before apply (what --dry-run reports). */
export function predictedOutcome(item: PlanItem): ItemOutcome {
  const head = {
    pipeline_id: item.pipeline_id,
    destination_id: item.destination_id,
    bundle_dir: item.bundle_dir,
    bundle_id: item.bundle_id,
  };
  switch (item.outcome) {
    case 'published':
      return { ...head, outcome: 'published', outputs: item.outputs.length };
    case 'replaced':
      return {
        ...head,
        outcome: 'replaced',
        ...(item.reason === undefined ? {} : { reason: item.reason }),
        ...(item.destination_created === undefined ? {} : { destination_created: item.destination_created }),
        ...(item.source_created === undefined ? {} : { source_created: item.source_created }),
        outputs: item.outputs.length,
      };
    case 'skipped_same':
      return { ...head, outcome: 'skipped_same' };
    case 'skipped_newer':
      return {
        ...head,
        outcome: 'skipped_newer',
        ...(item.destination_created === undefined ? {} : { destination_created: item.destination_created }),
        ...(item.source_created === undefined ? {} : { source_created: item.source_created }),
      };
    case 'conflict':
      return {
        ...head,
        outcome: 'conflict',
        reason_code: item.reason_code,
        ...(item.destination_bundle_id === undefined
          ? {}
          : { destination_bundle_id: item.destination_bundle_id }),
        ...(item.published_by === undefined ? {} : { published_by: item.published_by }),
      };
    case 'refused':
      return {
        ...head,
        outcome: 'refused',
        reason_code: item.reason_code,
        ...(item.output_path === undefined ? {} : { output_path: item.output_path }),
        ...(item.entry_path === undefined ? {} : { entry_path: item.entry_path }),
        ...(item.entry_kind === undefined ? {} : { entry_kind: item.entry_kind }),
        ...(item.entry_count === undefined ? {} : { entry_count: item.entry_count }),
        ...(item.entry_generated === undefined ? {} : { entry_generated: item.entry_generated }),
        ...(item.unlisted_path === undefined ? {} : { unlisted_path: item.unlisted_path }),
        ...(item.unlisted_count === undefined ? {} : { unlisted_count: item.unlisted_count }),
        ...(item.entry_size === undefined ? {} : { entry_size: item.entry_size }),
        ...(item.entry_sha256_differs === undefined
          ? {}
          : { entry_sha256_differs: item.entry_sha256_differs }),
      };
  }
}

export function buildReport(plan: RunPlan, outcomes: readonly ItemOutcome[], dryRun: boolean): RunReport {
  const counts = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, 0])) as { [O in Outcome]: number };
  for (const item of outcomes) counts[item.outcome] += 1;
  const failed = plan.failures.length > 0 || counts.conflict > 0 || counts.refused > 0;
  return {
    status: failed ? 'refused' : 'ok',
    dry_run: dryRun,
    aborted: plan.aborted,
    failures: plan.failures,
    counts,
    outcomes,
    plan,
  };
}

/**
 * The report with every refusal located: a bundle failure under the source
 * root as the configuration names it, a destination's refusal at the key of
 * the setting it is about or else at that destination's entry in the
 * configuration (`refusalOrigin`), with the bundle in the hint.
 */
export function locateReport(report: RunReport, pipelines: readonly PipelineConfig[]): RunReport {
  const byId = new Map(pipelines.map((pipeline) => [pipeline.id, pipeline]));
  const locateFailure = (failure: RunFailure): RunFailure => {
    if (failure.refusal !== undefined) return failure;
    const source = byId.get(failure.pipeline_id)?.source;
    const root = source?.shown ?? source?.root;
    const base = root === undefined || failure.bundle_dir === null ? root : join(root, failure.bundle_dir);
    const refusal = knownRefusal(failure.reason_code);
    return { ...failure, refusal: base === undefined ? refusal : refusal.at({ path: base }) };
  };
  const failures = report.failures.map(locateFailure);
  const failed = new Set(failures.map((f) => `${f.pipeline_id}\u0000${f.bundle_dir ?? ''}`));
  const outcomes = report.outcomes.map((item): ItemOutcome => {
    if (item.reason_code === undefined || item.reason_code === 'run_aborted') return item;
    if (failed.has(`${item.pipeline_id}\u0000${item.bundle_dir}`)) return item;
    const destination = byId
      .get(item.pipeline_id)
      ?.destinations.find((candidate) => candidate.id === item.destination_id);
    // At the key of the setting it is about (`root:`, `bucket:`, `endpoint:` …), else the entry.
    const origin =
      destination === undefined
        ? undefined
        : refusalOrigin(destination, item.reason_code, item.refusal?.field);
    const { pointer, ...place } = origin ?? { pointer: undefined };
    // A backend's own refusal keeps its hint (the cause of a failed write),
    // after the bundle; its location is the destination's, not the backend's.
    // A state sealkit did not write is named by its file, with the backend's
    // account of the fault (the key and its line) and what to do.
    const own = item.refusal?.code === item.reason_code ? item.refusal.hint : undefined;
    const published = destination === undefined ? undefined : placeOf(destination, item.bundle_dir);
    const manifest = report.plan.pipelines
      .find((pipeline) => pipeline.id === item.pipeline_id)
      ?.bundles.find((bundle) => bundle.bundle_dir === item.bundle_dir)?.manifest;
    const cause =
      item.reason_code === 'destination_state_invalid'
        ? adviceFor(item, published, own)
        : item.reason_code === 'outputs_empty' && manifest !== undefined && destination !== undefined
          ? noOutputsHint(manifest, destination.outputs)
          : (own ?? adviceFor(item, published));
    const refusal = knownRefusal(item.reason_code).at(
      { ...place, ...(pointer === undefined || pointer === '' ? {} : { pointer }) },
      cause === undefined
        ? `destination '${item.destination_id}', bundle '${item.bundle_dir}'`
        : `destination '${item.destination_id}', bundle '${item.bundle_dir}': ${cause}`,
    );
    return { ...item, refusal };
  });
  return { ...report, failures, outcomes, plan: { ...report.plan, failures } };
}

/**
 * Every refusal of a report, once: the bundle failures, then each
 * destination's refusals, one per destination, reason and cause (a locked
 * destination refuses every bundle for one cause, said once). Bundles whose
 * causes differ — one output written over, another deleted — are said
 * apart, each with its own advice; causes that differ only in the bundle's
 * name and in numbers (a lease's end, a size) are one.
 */
export function reportRefusals(report: RunReport): readonly Refusal[] {
  const refusals = report.failures.map((failure) => failure.refusal ?? knownRefusal(failure.reason_code));
  const groups = new Map<string, { refusal: Refusal; destination: string; bundles: string[] }>();
  for (const item of report.outcomes) {
    if (item.refusal === undefined) continue;
    const key = `${item.pipeline_id}\u0000${item.destination_id}\u0000${item.refusal.code}\u0000${causeKey(item.refusal.hint, item.bundle_dir)}`;
    const group = groups.get(key);
    if (group === undefined)
      groups.set(key, {
        refusal: item.refusal,
        destination: item.destination_id,
        bundles: [item.bundle_dir],
      });
    else group.bundles.push(item.bundle_dir);
  }
  for (const { refusal, destination, bundles } of groups.values()) {
    const [first] = bundles;
    if (bundles.length === 1 || first === undefined) {
      refusals.push(refusal);
      continue;
    }
    // The first bundle's cause (`...: no space left on the filesystem (ENOSPC)`) stands for the group.
    const named = `destination '${destination}', bundle '${first}'`;
    const cause = refusal.hint?.startsWith(named) === true ? refusal.hint.slice(named.length) : '';
    refusals.push(refusal.at({}, `${named} and ${bundles.length - 1} more${cause}`));
  }
  return refusals;
}

/** A hint with the bundle's own name and every number taken out: what bundles of one cause share. */
function causeKey(hint: string | undefined, bundleDir: string): string {
  return (hint ?? '')
    .split(bundleDir)
    .join('\u0001')
    .replace(/[0-9]+/g, '#');
}

const TABLES: readonly { readonly [code: string]: RefusalSpec }[] = [
  refuseDistributor.table,
  refuseFs.table,
  refuseInternal.table,
];

/** The refusal for a code a report carries (the distributor's, or a core one a backend passed on). */
function knownRefusal(code: string): Refusal {
  for (const table of TABLES) {
    const spec = Object.hasOwn(table, code) ? table[code] : undefined;
    if (spec !== undefined) return new Refusal(code, spec);
  }
  return refuseInternal('internal_error');
}

/**
 * Where a destination keeps a bundle, as the operator finds it, and the
 * words for acting on it: a local folder under the root as the
 * configuration writes it (`'site/weekly'`); on S3 the bundle's objects,
 * named by the location one pastes into a client to act on them
 * (`'s3://reports/site/weekly/'`: the bucket and the prefix, never the
 * endpoint or a credential), with the trailing slash that keeps a
 * recursive delete inside the bundle.
 */
interface PublishedPlace {
  readonly objects: boolean;
  readonly folder: string;
  readonly state: string;
  readonly removal: string;
  readonly setAside: string;
}

function placeOf(destination: DestinationConfig, bundleDir: string): PublishedPlace {
  if (destination.kind === 'local') {
    const folder = join(destination.shown_root ?? destination.root, bundleDir);
    return {
      objects: false,
      folder: `'${folder}'`,
      state: `'${join(folder, STATE_FILE)}'`,
      removal: 'remove the published bundle folder',
      setAside: 'move the published bundle folder away',
    };
  }
  const location = `s3://${destination.bucket}/${destination.prefix === '' ? '' : `${destination.prefix}/`}${bundleDir}/`;
  return {
    objects: true,
    folder: `'${location}'`,
    state: `'${location}${STATE_FILE}'`,
    removal: `delete every object under '${location}'`,
    // An S3 prefix has no folder to move: its objects are what is set aside.
    setAside: `move or delete every object under '${location}'`,
  };
}

/** What stands where a file was, in words. */
const KIND_WORDS: { readonly [K in EntryKind]: string } = {
  folder: 'a folder',
  symlink: 'a symbolic link',
  special: 'a special file (a FIFO, a socket or a device)',
};

/** `the first of 3`, `the only one`, or `the first` when the count is not known. */
function whichOf(count: number | undefined): string {
  return count === undefined ? 'the first' : count === 1 ? 'the only one' : `the first of ${count}`;
}

/** `1 entry`, `3 objects`. */
function counted(count: number, noun: 'entry' | 'object'): string {
  return count === 1 ? `1 ${noun}` : `${count} ${noun === 'entry' ? 'entries' : 'objects'}`;
}

/**
 * Entries sealkit did not write beside outputs that are not as published:
 * what to move out before the bundle folder is removed (nothing of the
 * operator's may go with it), or nothing when there are none, or when the
 * only one is `beside` itself (a folder standing at an output's name).
 */
function moveFirst(item: ItemOutcome, place: PublishedPlace | undefined, beside?: string): string {
  const count = item.unlisted_count;
  const path = item.unlisted_path;
  if (count === undefined && path === undefined) return '';
  if (beside !== undefined && (count === undefined || count === 1) && (path === undefined || path === beside))
    return '';
  const objects = place?.objects === true;
  const noun = objects ? 'object' : 'entry';
  const how = [
    ...(count === undefined ? [] : [counted(count, noun)]),
    ...(path === undefined ? [] : [`the first: '${path}'`]),
  ].join(', ');
  const them = `what sealkit did not write there (${how})`;
  return objects ? `first move ${them} to keys outside it, then ` : `first move ${them} out of it, then `;
}

function incompleteAdvice(item: ItemOutcome, place: PublishedPlace | undefined): string {
  const where = place === undefined ? ' it' : ` ${place.folder}`;
  const removal = place?.removal ?? 'remove the published bundle folder';
  const which = whichOf(item.entry_count);
  const entry = `'${item.entry_path ?? '?'}'`;
  if (item.entry_path !== undefined && item.entry_kind !== undefined) {
    // Not a file sealkit wrote, and perhaps a folder of the operator's own:
    // it is moved away, never removed with the bundle folder.
    const more = moveFirst(item, place, item.entry_path);
    return `outputs its .distributor.json lists are not as published in${where} (${which}: ${entry} is now ${KIND_WORDS[item.entry_kind]}, not the file sealkit published): sealkit never deletes what it did not write; move it out of the bundle folder${more === '' ? ', then ' : `, ${more.replace(/^first /, 'and ')}`}${removal}, and the next run publishes it anew`;
  }
  const more = moveFirst(item, place);
  // A rendered page has no copy in the source to put back: the next run renders it again.
  const back =
    item.entry_generated === true
      ? `${entry} is a page sealkit rendered, which no file of the source holds to put back: ${more}${removal} (move the edited page out of it first to keep it), and the next run renders and publishes it anew`
      : `put the published ${place?.objects === true ? 'object' : 'file'} back, or ${more}${removal}, and the next run publishes it anew`;
  // An output someone wrote over is there, with another size: "gone" would send the operator looking for a deleted file.
  if (item.entry_size !== undefined && item.entry_path !== undefined)
    return `outputs its .distributor.json lists are not as published in${where} (${which}: ${entry} is there with ${bytes(item.entry_size)}, not the size it records, so something else wrote over it): sealkit never overwrites what it did not write; ${back}`;
  // Same size, other bytes: only --checksum sees it, and the size is no clue to give.
  if (item.entry_sha256_differs === true && item.entry_path !== undefined)
    return `outputs its .distributor.json lists are not as published in${where} (${which}: ${entry} has the size it records, but its bytes differ from what sealkit published, so something else wrote over it): sealkit never overwrites what it did not write; ${back}`;
  const named = item.entry_path === undefined ? '' : ` (${which}: ${entry})`;
  return `outputs its .distributor.json lists are gone from${where}${named}: ${more}${removal}, and the next run publishes it anew`;
}

function unlistedAdvice(item: ItemOutcome, place: PublishedPlace | undefined): string {
  const objects = place?.objects === true;
  const where = place === undefined ? '' : ` ${objects ? 'under' : 'in'} ${place.folder}`;
  const one = item.entry_count === 1;
  const noun = objects ? (one ? 'an object' : 'objects') : one ? 'an entry' : 'entries';
  const kind = item.entry_kind === undefined ? '' : `, ${KIND_WORDS[item.entry_kind]}`;
  const named =
    item.entry_path === undefined
      ? ''
      : one
        ? ` ('${item.entry_path}'${kind})`
        : ` (${whichOf(item.entry_count)}: '${item.entry_path}'${kind})`;
  const it = one ? 'it' : 'them';
  const away = objects
    ? `move ${it} to keys outside the bundle's folder`
    : `move ${it} out of the bundle folder`;
  return `${noun} sealkit did not write ${one ? 'is' : 'are'}${where}${named}, and it never deletes ${it}: ${away} to let it replace the bundle`;
}

/** `1 byte`, `14 bytes`. */
function bytes(size: number): string {
  return size === 1 ? '1 byte' : `${size} bytes`;
}

/** ` (the first: 'x')`, or nothing when the entry has no name to show. */
function firstOf(entry: string | undefined): string {
  return entry === undefined ? '' : ` (the first: '${entry}')`;
}

/**
 * What to do about an outcome the destination decided, where the code alone
 * leaves the operator guessing (docs/distributor.md#outcomes). sealkit
 * itself never resolves these: each means something at the destination is
 * not what this run may overwrite.
 */
function adviceFor(item: ItemOutcome, place?: PublishedPlace, detail?: string): string | undefined {
  const named = place === undefined ? '' : ` ${place.folder}`;
  const removal = place?.removal ?? 'remove the published bundle folder';
  switch (item.reason_code) {
    case 'destination_unmanaged':
      // An S3 prefix holds objects, moved by copying them to other keys.
      if (place?.objects === true)
        return `the bundle path${named} holds objects that no .distributor.json lists${firstOf(item.entry_path)}, and sealkit never takes over a prefix it did not publish: move them to keys outside it, or publish under another prefix`;
      return `the bundle path${named} holds entries that no .distributor.json lists${firstOf(item.entry_path)}, and sealkit never takes over a folder it did not publish: move them away, or publish to another root or prefix`;
    case 'conflict_different_id':
      return `the bundle path${named} holds bundle id '${item.destination_bundle_id ?? '?'}', the source bundle is '${item.bundle_id ?? '?'}': one bundle path keeps one id; move the published bundle away, or give the source its old id`;
    case 'conflict_same_created':
      return 'the same id and created, but other content: a new version of a bundle needs a later created (sealkit distribute manifest --created)';
    case 'conflict_other_destination':
      return `pipeline '${item.published_by?.pipeline_id ?? '?'}', destination '${item.published_by?.destination_id ?? '?'}' published it there with other outputs: two destinations share this place and would replace each other's outputs on every run; give each its own root or prefix (if this destination was renamed, ${removal} and run again)`;
    case 'destination_incomplete':
      return incompleteAdvice(item, place);
    case 'destination_unlisted_entry':
      // A state below the bundle's own: another configuration published a bundle inside this one.
      if (item.entry_path?.endsWith(`/${STATE_FILE}`) === true)
        return `another publication lies inside it: '${item.entry_path.slice(0, -STATE_FILE.length)}' holds a ${STATE_FILE} of its own (a bundle published there by another configuration or destination), and sealkit never deletes what it did not write into this bundle: move that publication out of it (and its configuration's prefix or root with it) to let it replace the bundle`;
      return unlistedAdvice(item, place);
    case 'destination_state_invalid':
      return `${place === undefined ? 'its .distributor.json' : place.state} is not one sealkit wrote${detail === undefined ? ' (read strictly: an unknown or missing key, or a value out of its form, means someone edited it)' : `: ${detail}`}; restore the file sealkit wrote, or ${place?.setAside ?? 'move the published bundle folder away'}, and the next run publishes it anew`;
    case 'destination_locked':
      return 'another run holds it (a local destination by its lock, an S3 bundle by its pending marker until the lease ends): run again once that run is done, or pass --wait SECONDS to wait for it';
    case 'destination_changed':
      return 'another run published or took over the bundle after this run read it, so this run committed nothing of it: run again, and it starts from what that run left';
    case 'run_interrupted':
      // Also a replacement's: the version published before stays the one its state names.
      return "the run was stopped before this bundle's .distributor.json was written, so the version it was writing is not published: run again to publish it (the next run finishes or removes what this one began)";
    case 'output_too_large':
      return `output '${item.output_path ?? '?'}' is larger than one object at this destination can be (5 GiB for S3): split it, or publish it to a local destination`;
    case 'output_key_too_long':
      return `the key of '${item.output_path ?? '?'}' (prefix, bundle folder and path) would be longer than the destination allows (1,024 bytes for S3): shorten the prefix, the bundle folder or the file name`;
    default:
      return undefined;
  }
}
