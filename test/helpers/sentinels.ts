import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Proves that nothing a command printed or wrote carries a planted secret:
 * fixtures embed sentinel strings (table names, paths, fingerprints, values),
 * and every byte of stdout, stderr and every file (and every file name) under
 * the given directories is searched for each sentinel in the encodings a leak
 * could take: raw UTF-8, JSON-escaped, all-\u-escaped, percent-encoded, base64,
 * and ASCII case-folded.
 */
export interface SentinelSource {
  readonly label: string;
  readonly bytes: Uint8Array | string;
}

export interface SentinelHit {
  readonly sentinel: string;
  readonly encoding: string;
  readonly where: string;
}

export function sentinelEncodings(sentinel: string): ReadonlyMap<string, Buffer> {
  const forms = new Map<string, Buffer>();
  forms.set('utf8', Buffer.from(sentinel, 'utf8'));
  forms.set('json', Buffer.from(JSON.stringify(sentinel).slice(1, -1), 'utf8'));
  const allEscaped = [...sentinel]
    .map((ch) => {
      const code = ch.codePointAt(0) ?? 0;
      if (code < 0x80) return ch;
      return code > 0xffff
        ? ch
            .split('')
            .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
            .join('')
        : `\\u${code.toString(16).padStart(4, '0')}`;
    })
    .join('');
  forms.set('unicode-escaped', Buffer.from(allEscaped, 'utf8'));
  forms.set('percent', Buffer.from(encodeURIComponent(sentinel), 'utf8'));
  forms.set(
    'base64',
    Buffer.from(Buffer.from(sentinel, 'utf8').toString('base64').replace(/=+$/, ''), 'utf8'),
  );
  return forms;
}

function asciiLower(bytes: Uint8Array): Buffer {
  const copy = Buffer.from(bytes);
  for (const [i, b] of copy.entries()) {
    if (b >= 0x41 && b <= 0x5a) copy[i] = b + 0x20;
  }
  return copy;
}

export function scanBytes(sources: readonly SentinelSource[], sentinels: readonly string[]): SentinelHit[] {
  const hits: SentinelHit[] = [];
  for (const source of sources) {
    const haystack =
      typeof source.bytes === 'string' ? Buffer.from(source.bytes, 'utf8') : Buffer.from(source.bytes);
    const folded = asciiLower(haystack);
    for (const sentinel of sentinels) {
      if (sentinel.length < 4)
        throw new Error('sentinels must be at least 4 characters to avoid chance matches');
      for (const [encoding, needle] of sentinelEncodings(sentinel)) {
        if (haystack.includes(needle)) hits.push({ sentinel, encoding, where: source.label });
        else if (encoding !== 'base64' && folded.includes(asciiLower(needle))) {
          hits.push({ sentinel, encoding: `${encoding}, case-folded`, where: source.label });
        }
      }
    }
  }
  return hits;
}

/** Every regular file's bytes and every entry name under `root`, without following symlinks. */
export function collectTree(root: string, label = root): SentinelSource[] {
  const sources: SentinelSource[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const relPath = rel === '' ? name : `${rel}/${name}`;
      sources.push({ label: `${label}: name ${relPath}`, bytes: name });
      const stat = lstatSync(path);
      if (stat.isDirectory()) walk(path, relPath);
      else if (stat.isFile()) sources.push({ label: `${label}: ${relPath}`, bytes: readFileSync(path) });
      else if (stat.isSymbolicLink()) sources.push({ label: `${label}: link ${relPath}`, bytes: name });
    }
  };
  walk(root, '');
  return sources;
}

export interface CommandCapture {
  readonly stdout: Uint8Array | string;
  readonly stderr: Uint8Array | string;
}

/** Scans a command's stdout and stderr and every tree it could have written. */
export function scanForSentinels(
  capture: CommandCapture,
  writtenTrees: readonly string[],
  sentinels: readonly string[],
): SentinelHit[] {
  const sources: SentinelSource[] = [
    { label: 'stdout', bytes: capture.stdout },
    { label: 'stderr', bytes: capture.stderr },
    ...writtenTrees.flatMap((tree) => collectTree(tree)),
  ];
  return scanBytes(sources, sentinels);
}

/**
 * The marks of a located refusal (docs/refusals.md#two-policies): the human
 * `-->`, `= help:` and `= at:` lines, the `--json` `location` and `hint`
 * members, and a line/column however written. A private command (migration
 * evidence, scaffolder, owner codec) must print none of them.
 */
export const LOCATED_MARKS: readonly { readonly mark: string; readonly pattern: RegExp }[] = [
  { mark: '-->', pattern: /-->/ },
  { mark: '= help', pattern: /= help/ },
  { mark: '= at:', pattern: /= at:/ },
  { mark: 'location member', pattern: /"location"/ },
  { mark: 'hint member', pattern: /"hint"/ },
  { mark: 'line member', pattern: /"line"/ },
  { mark: 'column member', pattern: /"column"/ },
  { mark: 'pointer member', pattern: /"pointer"/ },
  // `file.json:3:14` and `:3`, but not a clock time such as 09:26:53.
  { mark: 'name:line:column', pattern: /[^\d\s:"]:\d+(?::\d+)?\b/ },
  { mark: 'line N', pattern: /\bline \d+/i },
  { mark: 'column N', pattern: /\bcolumn \d+/i },
];

/** Every located mark in a command's stdout and stderr (see LOCATED_MARKS). */
export function scanForLocatedDetail(capture: CommandCapture): SentinelHit[] {
  const hits: SentinelHit[] = [];
  for (const [where, bytes] of [
    ['stdout', capture.stdout],
    ['stderr', capture.stderr],
  ] as const) {
    const text = typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8');
    for (const { mark, pattern } of LOCATED_MARKS) {
      if (pattern.test(text)) hits.push({ sentinel: mark, encoding: 'pattern', where });
    }
  }
  return hits;
}

/** A key planted in every located-style fault below: no private command may print it. */
export const KEY_SENTINEL = 'ZqPlantedKey';

/**
 * JSON documents with faults that a located domain reports by line and
 * column (and often a hint): each at a known place, each holding
 * KEY_SENTINEL, so a private domain printing anything of it is caught.
 */
export const LOCATED_FAULTS: readonly { readonly name: string; readonly bytes: Buffer }[] = [
  { name: 'malformed at 3:8', bytes: Buffer.from(`{\n  "${KEY_SENTINEL}": 1,\n  "b": ,\n  "c": 2\n}\n`) },
  {
    name: 'duplicate key at 4:3',
    bytes: Buffer.from(`{\n  "${KEY_SENTINEL}": 1,\n  "b": 2,\n  "${KEY_SENTINEL}": 3\n}\n`),
  },
  { name: 'lone surrogate at 2:20', bytes: Buffer.from(`{\n  "${KEY_SENTINEL}": "\\udc00"\n}\n`) },
  { name: 'trailing data at 3:1', bytes: Buffer.from(`{"${KEY_SENTINEL}": 1}\n\n{"b": 2}\n`) },
  { name: 'byte order mark at 1:1', bytes: Buffer.from(`\ufeff{"${KEY_SENTINEL}": 1}\n`) },
  {
    name: 'invalid UTF-8 at 2:20',
    bytes: Buffer.concat([
      Buffer.from(`{\n  "${KEY_SENTINEL}": "`),
      Buffer.from([0xe9]),
      Buffer.from('"\n}\n'),
    ]),
  },
];
