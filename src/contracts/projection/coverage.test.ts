import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isJsonObject, parseStrict } from '../../core/json/index.js';
import { REPO_ROOT } from '../fixtures/resources.js';
import { PROJECTED_FIELDS } from './allowlist.js';
import { authoringJsonSchemas, checkProjectionCoverage, type ExclusionEntry } from './coverage.js';

const MANIFEST = join(REPO_ROOT, 'src', 'contracts', 'projection', 'exclusion-manifest.json');

function readManifest(): ExclusionEntry[] {
  const document = parseStrict(readFileSync(MANIFEST));
  if (
    !isJsonObject(document) ||
    document.profile !== 'leapview.contract/v1' ||
    !Array.isArray(document.exclusions)
  ) {
    throw new Error('the exclusion manifest is malformed');
  }
  return document.exclusions.map((entry) => {
    if (!isJsonObject(entry)) throw new Error('malformed entry');
    const { path, reason, shape_sha256 } = entry;
    if (typeof path !== 'string' || typeof reason !== 'string' || typeof shape_sha256 !== 'string') {
      throw new Error('malformed entry');
    }
    return { path, reason, shape_sha256 };
  });
}

describe('projection coverage: the allowlist and the reviewed exclusion manifest', () => {
  const schemas = authoringJsonSchemas();
  const manifest = readManifest();

  it('classify every authored field of the generated schemas exactly once', () => {
    // On failure: project the field (allowlist.ts) or review an exclusion (exclusion-manifest.json);
    // a `reshaped` issue carries the shape hash the schema has now.
    expect(checkProjectionCoverage(schemas, PROJECTED_FIELDS, manifest)).toEqual([]);
  });

  it('give every exclusion a reason, in path order', () => {
    for (const entry of manifest) expect(entry.reason.length).toBeGreaterThan(20);
    const paths = manifest.map((entry) => entry.path);
    expect(paths).toEqual([...paths].sort());
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('exclude credentials, target configuration, runtime state, source locations, tags and prose', () => {
    const excluded = new Set(manifest.map((entry) => entry.path));
    for (const path of [
      'Source.credentials',
      'Source.target',
      'Model.target',
      'Source.runtime',
      'Source.location',
      'Source.tags',
      'Source.description',
      'Source.fields[].description',
      'SemanticModel.measures[].label',
    ]) {
      expect(excluded.has(path)).toBe(true);
    }
  });

  it('fails on an unclassified field', () => {
    const without = manifest.filter((entry) => entry.path !== 'Source.location');
    expect(checkProjectionCoverage(schemas, PROJECTED_FIELDS, without)).toEqual([
      { problem: 'unclassified', path: 'Source.location' },
    ]);
    const projected = {
      ...PROJECTED_FIELDS,
      Model: (PROJECTED_FIELDS.Model ?? []).filter((path) => path !== 'checks[].severity'),
    };
    expect(checkProjectionCoverage(schemas, projected, manifest)).toEqual([
      { problem: 'unclassified', path: 'Model.checks[].severity' },
    ]);
  });

  it('fails on a field that is both projected and excluded', () => {
    const overlap = [
      ...manifest,
      { path: 'Source.fields[].name', reason: 'x', shape_sha256: '0'.repeat(64) },
    ];
    expect(checkProjectionCoverage(schemas, PROJECTED_FIELDS, overlap)).toContainEqual({
      problem: 'overlap',
      path: 'Source.fields[].name',
    });
  });

  it('fails on a stale path in the manifest or the allowlist', () => {
    const stale = [...manifest, { path: 'Source.owner', reason: 'gone', shape_sha256: '0'.repeat(64) }];
    expect(checkProjectionCoverage(schemas, PROJECTED_FIELDS, stale)).toEqual([
      { problem: 'stale', path: 'Source.owner' },
    ]);
    const projected = {
      ...PROJECTED_FIELDS,
      Source: [...(PROJECTED_FIELDS.Source ?? []), 'fields[].precision'],
    };
    expect(checkProjectionCoverage(schemas, projected, manifest)).toEqual([
      { problem: 'stale', path: 'Source.fields[].precision' },
    ]);
  });

  it('fails when an excluded field changes shape, but not when only its documentation changes', () => {
    const source = schemas.Source as { properties: Record<string, Record<string, unknown>> };
    const reshaped = {
      ...schemas,
      Source: { ...source, properties: { ...source.properties, tags: { type: 'string' } } },
    };
    expect(checkProjectionCoverage(reshaped, PROJECTED_FIELDS, manifest)).toEqual([
      { problem: 'reshaped', path: 'Source.tags', actual: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
    const redocumented = {
      ...schemas,
      Source: {
        ...source,
        properties: { ...source.properties, tags: { ...source.properties.tags, description: 'new words' } },
      },
    };
    expect(checkProjectionCoverage(redocumented, PROJECTED_FIELDS, manifest)).toEqual([]);
  });

  it('fails when a new field appears inside a projected object', () => {
    const source = schemas.Source as { properties: Record<string, unknown> };
    const grown = {
      ...schemas,
      Source: { ...source, properties: { ...source.properties, owner: { type: 'string' } } },
    };
    expect(checkProjectionCoverage(grown, PROJECTED_FIELDS, manifest)).toEqual([
      { problem: 'unclassified', path: 'Source.owner' },
    ]);
  });
});
