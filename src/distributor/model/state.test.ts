import { describe, expect, it } from 'vitest';
import { Refusal } from '../../core/refusal/index.js';
import { parseState, serializeState } from './state.js';
import type { DestinationState } from './types.js';

const SHA = `sha256:${'b'.repeat(64)}`;
const state = {
  schema_version: 1,
  distributor_version: '0.1.0',
  pipeline_id: 'weather-daily',
  destination_id: 'static-site',
  published_at: '2026-05-30T11:12:00Z',
  source: {
    manifest: {
      schema_version: 1,
      id: 'weather.daily.brentwood.2026-05-30',
      digest: SHA,
      created: '2026-05-30T11:10:00Z',
      files: [{ path: 'report.md', sha256: SHA, size: 12345 }],
    },
  },
  outputs: [
    {
      path: 'report.html',
      kind: 'generated',
      source_path: 'report.md',
      transform: 'markdown_to_html',
      sha256: SHA,
      size: 23456,
    },
    { path: 'report.md', kind: 'source', source_path: 'report.md', sha256: SHA, size: 12345 },
  ],
};

describe('.distributor.json', () => {
  it('is the documented shape, field for field, and round-trips byte for byte', () => {
    const text = `${JSON.stringify(state, null, 2)}\n`;
    const parsed = parseState(Buffer.from(text));
    expect(parsed).toEqual(state);
    expect(serializeState(parsed as DestinationState)).toBe(text);
  });

  it.each([
    ['an unknown top-level field', { ...state, extra: 1 }],
    ['a missing outputs', { ...state, outputs: undefined }],
    ['an unknown output kind', { ...state, outputs: [{ ...state.outputs[1], kind: 'copy' }] }],
    [
      'a generated output without transform',
      { ...state, outputs: [{ ...state.outputs[0], transform: undefined }] },
    ],
    ['an output outside the bundle', { ...state, outputs: [{ ...state.outputs[1], path: '../x' }] }],
    ['duplicate outputs', { ...state, outputs: [state.outputs[1], state.outputs[1]] }],
    ['an unknown manifest field', { ...state, source: { manifest: { ...state.source.manifest, x: 1 } } }],
    ['a bad published_at', { ...state, published_at: 'yesterday' }],
    ['schema_version 2', { ...state, schema_version: 2 }],
  ])('refuses %s as destination_state_invalid', (_label, document) => {
    let caught: unknown;
    try {
      parseState(Buffer.from(JSON.stringify(document)));
    } catch (error: unknown) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Refusal);
    expect((caught as Refusal).code).toBe('destination_state_invalid');
  });

  it.each([
    [
      'an unknown key',
      (text: string) => text.replace('\n}\n', ',\n  "note": "checked by ops"\n}\n'),
      "unknown key 'note' at line 39, column 3",
    ],
    [
      'an unknown key of the manifest inside',
      (text: string) =>
        text.replace('"schema_version": 1,\n      "id"', '"schema_version": 1,\n      "x": 1,\n      "id"'),
      "unknown key 'x' in source.manifest at line 10, column 7",
    ],
    [
      'a missing key',
      (text: string) => text.replace('      "created": "2026-05-30T11:10:00Z",\n', ''),
      "no key 'created' in source.manifest at line 8, column 17",
    ],
    [
      'a value out of its form',
      (text: string) => text.replace('"size": 23456', '"size": "big"'),
      'outputs[0].size at line 29, column 15 is not what sealkit writes there',
    ],
    [
      'an output listed twice',
      (text: string) => text.replace('"path": "report.html"', '"path": "report.md"'),
      'outputs[1].path at line 32, column 15 repeats outputs[0].path',
    ],
    [
      'text that is not JSON',
      (text: string) => text.replace('"pipeline_id"', 'pipeline_id'),
      'not strict JSON at line 4, column 3 (expected a key in double quotes)',
    ],
  ])(
    'regression: %s is named with its key and line (was a bare destination_state_invalid)',
    (_label, edit, hint) => {
      let caught: unknown;
      try {
        parseState(Buffer.from(edit(`${JSON.stringify(state, null, 2)}\n`)));
      } catch (error: unknown) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(Refusal);
      expect([(caught as Refusal).code, (caught as Refusal).hint]).toEqual([
        'destination_state_invalid',
        hint,
      ]);
    },
  );

  it('accepts a state without the optional distributor_version', () => {
    const { distributor_version: _version, ...rest } = state;
    expect(parseState(Buffer.from(JSON.stringify(rest))).distributor_version).toBe('');
  });
});
