import { createHash } from 'node:crypto';
import {
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/**
 * Real source bundles for distributor tests. Digests are computed here with
 * node:crypto and JSON.stringify, independently of src/distributor, so a bug
 * there cannot make its own fixtures agree with it.
 */
export interface FixtureFile {
  readonly path: string;
  readonly content: string | Uint8Array;
}

export interface FixtureManifest {
  readonly id: string;
  readonly created: string;
  /** Overrides for building invalid manifests. */
  readonly digest?: string;
  readonly files?: readonly { readonly path: string; readonly sha256: string; readonly size: number }[];
  readonly extra?: Record<string, unknown>;
}

export function sha256Of(content: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}

export function fileRecords(files: readonly FixtureFile[]) {
  return files.map((file) => ({
    path: file.path,
    sha256: sha256Of(file.content),
    size: Buffer.byteLength(file.content),
  }));
}

export function bundleDigestOf(records: readonly { path: string; sha256: string; size: number }[]): string {
  const payload = `[${records
    .map((r) => `{"path":${JSON.stringify(r.path)},"sha256":${JSON.stringify(r.sha256)},"size":${r.size}}`)
    .join(',')}]`;
  return sha256Of(payload);
}

/** Writes the files and a manifest.json (valid unless overridden) into `root/dir`. */
export function makeBundle(
  root: string,
  dir: string,
  files: readonly FixtureFile[],
  manifest: FixtureManifest,
): string {
  const bundle = join(root, dir);
  mkdirSync(bundle, { recursive: true });
  for (const file of files) {
    mkdirSync(dirname(join(bundle, file.path)), { recursive: true });
    writeFileSync(join(bundle, file.path), file.content);
  }
  const records = manifest.files ?? fileRecords(files);
  writeFileSync(
    join(bundle, 'manifest.json'),
    JSON.stringify(
      {
        schema_version: 1,
        id: manifest.id,
        digest: manifest.digest ?? bundleDigestOf(records),
        created: manifest.created,
        files: records,
        ...(manifest.extra ?? {}),
      },
      null,
      2,
    ),
  );
  return bundle;
}

export interface LocalDestinationFixture {
  readonly id: string;
  readonly root: string;
  /** `work_dir`, when given. */
  readonly workDir?: string;
  readonly source?: boolean;
  /** Default true; `{lang}` writes `html: {lang: …}`. */
  readonly html?: boolean | { readonly lang: string };
  /** Written only when given. */
  readonly assets?: boolean;
}

/** Writes sealkit.distributor.yaml with one pipeline per entry; returns its path. */
export function writeConfig(
  dir: string,
  pipelines: readonly {
    readonly id: string;
    readonly source: string;
    readonly destinations: readonly LocalDestinationFixture[];
  }[],
): string {
  const lines = ['pipelines:'];
  for (const pipeline of pipelines) {
    lines.push(
      `  - id: ${pipeline.id}`,
      '    source:',
      `      root: ${JSON.stringify(pipeline.source)}`,
      '    destinations:',
    );
    for (const d of pipeline.destinations) {
      lines.push(
        `      - id: ${d.id}`,
        '        kind: local',
        `        root: ${JSON.stringify(d.root)}`,
        ...(d.workDir === undefined ? [] : [`        work_dir: ${JSON.stringify(d.workDir)}`]),
        '        outputs:',
        `          source: ${d.source ?? true}`,
        `          html: ${typeof d.html === 'object' ? `{lang: ${JSON.stringify(d.html.lang)}}` : (d.html ?? true)}`,
        ...(d.assets === undefined ? [] : [`          assets: ${d.assets}`]),
      );
    }
  }
  const path = join(dir, 'sealkit.distributor.yaml');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/**
 * Every entry under `root` as `path → description` (file digest and mode,
 * directory mode, link target), sorted: two trees are equal when their maps
 * are. `published_at` differs between runs: callers pin the clock, or ignore it.
 */
export function describeTree(
  root: string,
  options: { readonly ignorePublishedAt?: boolean } = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const key = rel === '' ? name : `${rel}/${name}`;
      const stat = lstatSync(path);
      const mode = (stat.mode & 0o7777).toString(8);
      if (stat.isDirectory()) {
        out[key] = `dir ${mode}`;
        walk(path, key);
      } else if (stat.isFile()) {
        let bytes: Buffer | string = readFileSync(path);
        if (options.ignorePublishedAt === true && name === '.distributor.json') {
          bytes = bytes.toString('utf8').replace(/"published_at": "[^"]*"/, '"published_at": ""');
        }
        out[key] = `file ${mode} ${sha256Of(bytes)}`;
      } else if (stat.isSymbolicLink()) out[key] = `link ${readlinkSync(path)}`;
      else out[key] = 'other';
    }
  };
  walk(root, '');
  return out;
}

/**
 * A private copy of the built package (bin, dist, package.json, a link to
 * node_modules) under `dir`, for tests that start many child processes: on a
 * machine where others rebuild dist/ meanwhile, a child must not load a
 * half-written module. Returns the copy's root.
 */
export function privateBuild(repoRoot: string, dir: string): string {
  const root = join(dir, 'build');
  mkdirSync(root);
  for (const entry of ['bin', 'dist', 'package.json'])
    cpSync(join(repoRoot, entry), join(root, entry), { recursive: true });
  symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
  return root;
}

/** The folders of `weatherSiteTree`, made anew for each test. */
export interface WeatherSiteTree {
  /** The temporary folder that holds the rest. */
  readonly work: string;
  /** The pipeline's source root (`work/src`). */
  readonly source: string;
  /** The local destination's root (`work/dest`). */
  readonly dest: string;
  /** sealkit.distributor.yaml: pipeline `weather`, local destination `site`, default outputs. */
  readonly config: string;
}

/**
 * One pipeline `weather` publishing `work/src` to the local destination
 * `site` at `work/dest`, in a fresh temporary folder for each test and
 * removed after it (registered with the calling file's beforeEach and
 * afterEach). The paths are read through the returned object, which is
 * only filled while a test runs.
 */
export function weatherSiteTree(prefix: string): WeatherSiteTree {
  let current: WeatherSiteTree | undefined;
  const now = (): WeatherSiteTree => {
    if (current === undefined) throw new Error('weatherSiteTree is read outside a test');
    return current;
  };
  beforeEach(() => {
    const work = mkdtempSync(join(tmpdir(), prefix));
    const source = join(work, 'src');
    const dest = join(work, 'dest');
    mkdirSync(source);
    mkdirSync(dest);
    const config = writeConfig(work, [{ id: 'weather', source, destinations: [{ id: 'site', root: dest }] }]);
    current = { work, source, dest, config };
  });
  afterEach(() => {
    if (current !== undefined) rmSync(current.work, { recursive: true, force: true });
    current = undefined;
  });
  return {
    get work() {
      return now().work;
    },
    get source() {
      return now().source;
    },
    get dest() {
      return now().dest;
    },
    get config() {
      return now().config;
    },
  };
}
