import type { BundleDir, BundlePath } from '../model/types.js';
import {
  type DistributorRefusalCode,
  type NormalizationForm,
  refuseDistributor,
  type UnicodeTwinPaths,
} from '../refusals.js';

/**
 * Path decisions (docs/distributor.md, "Path rules"). A manifest path must
 * already be in normal form: sealkit never rewrites a producer's path, so the
 * digest it checks is over exactly the listed text. Refused:
 * - empty; longer than 4096 UTF-8 bytes, or a segment longer than 255;
 * - NUL, C0/C1 control characters and DEL (they break terminals, logs and
 *   object keys, and NUL ends a name in every C API);
 * - backslash anywhere: it is a separator on Windows and in many URL
 *   handlers, so `a\..\b` would mean different things to different readers;
 * - a leading slash (absolute), an empty or `.` segment, a trailing slash
 *   (not normalized: `a/./b`, `a//b`), a `..` segment;
 * - a segment named `manifest.json` or beginning with `.distributor`
 *   (reserved for the manifest, destination state and sealkit's markers);
 * - across one bundle: the same path twice, two paths equal after Unicode NFC
 *   normalization (`é` composed vs decomposed: one file on macOS and on many
 *   object-store clients), and a path that is also a directory of another.
 * Letter case is not folded: `A.md` and `a.md` are two files.
 */
const MAX_PATH_BYTES = 4096;
const MAX_SEGMENT_BYTES = 255;
const RESERVED_PREFIX = '.distributor';
const MANIFEST = 'manifest.json';

/** The refusal code for one path string, or undefined when it is acceptable. */
export function pathProblem(path: string): DistributorRefusalCode | undefined {
  if (path.length === 0) return 'path_empty';
  if (Buffer.byteLength(path, 'utf8') > MAX_PATH_BYTES) return 'path_too_long';
  if (hasControlCharacter(path)) return 'path_control_char';
  if (path.includes('\\')) return 'path_backslash';
  if (path.startsWith('/')) return 'path_absolute';
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') return 'path_not_normalized';
    if (segment === '..') return 'path_dotdot';
    if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES) return 'path_too_long';
    if (segment === MANIFEST || segment.startsWith(RESERVED_PREFIX)) return 'path_reserved';
  }
  return undefined;
}

/** NUL, C0 controls, DEL and C1 controls (U+0000–U+001F, U+007F–U+009F). */
function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit < 0x20 || (unit >= 0x7f && unit <= 0x9f)) return true;
  }
  return false;
}

/** Mints a BundlePath or throws the refusal for the first broken rule. */
export function toBundlePath(path: string, field = 'files[].path'): BundlePath {
  const problem = pathProblem(path);
  if (problem !== undefined) throw refuseDistributor(problem, { role: 'bundle', field });
  return path as BundlePath;
}

/** A bundle directory relative to the source root: the same rules, checked on its segments. */
export function toBundleDir(path: string): BundleDir {
  const problem = pathProblem(path);
  if (problem !== undefined) throw refuseDistributor('bundle_dir_invalid', { role: 'bundle' });
  return path as BundleDir;
}

/**
 * The set rules over the paths of one bundle (or the outputs of one
 * destination): no duplicate, no NFC twin, no path that is another's
 * directory. Returns the first problem found, deterministically.
 */
export function pathSetProblem(paths: readonly string[]): DistributorRefusalCode | undefined {
  return pathSetProblemAt(paths)?.code;
}

/**
 * One break of the set rules: the index of the path that breaks it (the
 * repeat, or the path running through a file); for a repeat or a twin, the
 * index of the path it repeats (`other`); for a clash, the index of the
 * path listed as a file that this one runs through (`file`).
 */
export interface PathSetProblem {
  readonly code: DistributorRefusalCode;
  readonly index: number;
  readonly other?: number;
  readonly file?: number;
}

/** `pathSetProblem` with where it is: the first of `pathSetProblemsAt`. */
export function pathSetProblemAt(paths: readonly string[]): PathSetProblem | undefined {
  return pathSetProblemsAt(paths)[0];
}

/**
 * Every break of the set rules, so that one round of fixes clears them all
 * (docs/distributor.md, "Reading an error"): each repeat and twin in list
 * order, then each path that runs through a listed file, in list order (one
 * each, at the outermost such file).
 */
export function pathSetProblemsAt(paths: readonly string[]): readonly PathSetProblem[] {
  const problems: PathSetProblem[] = [];
  const exact = new Map<string, number>();
  const folded = new Map<string, number>();
  for (const [index, path] of paths.entries()) {
    const same = exact.get(path);
    if (same !== undefined) {
      problems.push({ code: 'path_duplicate', index, other: same });
      continue;
    }
    exact.set(path, index);
    const nfc = path.normalize('NFC');
    const twin = folded.get(nfc);
    if (twin !== undefined) problems.push({ code: 'path_unicode_twin', index, other: twin });
    else folded.set(nfc, index);
  }
  for (const [nfc, index] of folded) {
    const file = parentDirs(nfc).find((parent) => folded.has(parent));
    if (file !== undefined)
      problems.push({ code: 'path_file_dir_clash', index, file: folded.get(file) ?? index });
  }
  return problems;
}

/** Byte order of UTF-8, the order sealkit sorts paths in (the same on every platform and locale). */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The parent directories of a path, outermost first (`a/b/c` → `a`, `a/b`). */
export function parentDirs(path: string): string[] {
  const parents: string[] = [];
  let cut = path.indexOf('/');
  while (cut !== -1) {
    parents.push(path.slice(0, cut));
    cut = path.indexOf('/', cut + 1);
  }
  return parents;
}

/** Which Unicode normalization form a path is written in: NFC, NFD, or neither (`mixed`). */
export function normalizationForm(path: string): NormalizationForm {
  if (path === path.normalize('NFC')) return 'NFC';
  if (path === path.normalize('NFD')) return 'NFD';
  return 'mixed';
}

/**
 * A path as a refusal's hint shows it when it has a Unicode twin: every
 * combining mark written as `\u0301`, so that the two names, alike on
 * screen, read differently (`café.txt` and `cafe\u0301.txt`).
 */
export function twinShown(path: string): string {
  return path.replace(/\p{M}/gu, (mark) => `\\u${(mark.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

/**
 * Two paths equal after NFC normalization, as a hint names them: each shown
 * by `twinShown` with its form (`'café.txt' (NFC) and 'cafe\u0301.txt'
 * (NFD)`), and as `--json` details give them.
 */
export function unicodeTwins(
  path: string,
  other: string,
  otherAt = '',
): { readonly text: string; readonly details: UnicodeTwinPaths } {
  const one = (p: string) => `'${twinShown(p)}' (${normalizationForm(p)})`;
  return {
    text: `${one(path)} and ${one(other)}${otherAt === '' ? '' : ` at ${otherAt}`}`,
    details: {
      paths: [
        { path, form: normalizationForm(path) },
        { path: other, form: normalizationForm(other) },
      ],
    },
  };
}
