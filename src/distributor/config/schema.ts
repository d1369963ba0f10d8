/**
 * The JSON Schema of `sealkit.distributor.yaml`, published at
 * docs/schemas/distributor-config.schema.json for editors. The validator in
 * `parse.ts` enforces the same rules (a test checks that the published file
 * is this object and that both accept and refuse the same fixtures).
 */
const ID = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' } as const;
const LANG = {
  type: 'string',
  pattern: '^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$',
  description: 'A BCP 47 language tag for <html lang>, e.g. en, en-GB, de-CH.',
} as const;
const OUTPUTS = {
  type: 'object',
  description: 'Categories of files the destination receives; at least one must be true.',
  additionalProperties: false,
  required: ['source', 'html'],
  properties: {
    source: { type: 'boolean', description: 'Copies of the files listed in manifest.json.' },
    html: {
      description:
        "An HTML page beside each .md file (report.md -> report.html): true, or {lang: en} to set the pages' language.",
      oneOf: [
        { type: 'boolean' },
        { type: 'object', additionalProperties: false, required: ['lang'], properties: { lang: LANG } },
      ],
    },
    assets: {
      type: 'boolean',
      description:
        'Copies of the listed files that are neither Markdown nor HTML (images, CSV, PDF), for sites without source: true. Default false.',
    },
  },
  anyOf: [
    { properties: { source: { const: true } } },
    { properties: { html: { const: true } } },
    { properties: { html: { type: 'object' } } },
    { required: ['assets'], properties: { assets: { const: true } } },
  ],
} as const;
const PATH = { type: 'string', minLength: 1, pattern: '^[^\\u0000]*$' } as const;

export const DISTRIBUTOR_CONFIG_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://sealkit.invalid/schemas/distributor-config.schema.json',
  title: 'sealkit distributor configuration (sealkit.distributor.yaml)',
  type: 'object',
  additionalProperties: false,
  required: ['pipelines'],
  properties: {
    pipelines: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'source', 'destinations'],
        properties: {
          id: { ...ID, description: 'Pipeline id, unique in the file; written to .distributor.json.' },
          source: {
            type: 'object',
            additionalProperties: false,
            required: ['root'],
            properties: {
              root: {
                ...PATH,
                description: 'Directory scanned for bundles (manifest.json); relative to this file.',
              },
            },
          },
          destinations: {
            type: 'array',
            minItems: 1,
            items: {
              oneOf: [
                {
                  type: 'object',
                  additionalProperties: false,
                  required: ['id', 'kind', 'root', 'outputs'],
                  properties: {
                    id: { ...ID, description: 'Destination id, unique in its pipeline.' },
                    kind: { const: 'local' },
                    root: {
                      ...PATH,
                      description: 'Existing directory bundles are published under; relative to this file.',
                    },
                    work_dir: {
                      ...PATH,
                      description:
                        'Existing directory that holds the work area (.distributor.work) instead of the root: on the same filesystem and mount as the root, outside every destination root; relative to this file.',
                    },
                    outputs: OUTPUTS,
                  },
                },
                {
                  type: 'object',
                  additionalProperties: false,
                  required: ['id', 'kind', 'bucket', 'prefix', 'outputs'],
                  properties: {
                    id: { ...ID, description: 'Destination id, unique in its pipeline.' },
                    kind: { const: 's3' },
                    bucket: { type: 'string', pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$' },
                    prefix: {
                      type: 'string',
                      pattern:
                        '^$|^[^/\\u0000-\\u001f\\u007f\\\\](?:[^\\u0000-\\u001f\\u007f\\\\]*[^/\\u0000-\\u001f\\u007f\\\\])?$',
                      description:
                        "Key prefix of the destination root, without leading or trailing '/'; '' is the bucket root.",
                    },
                    endpoint: {
                      type: 'string',
                      pattern: '^https?://[^\\s]+$',
                      description: 'S3-compatible endpoint URL.',
                    },
                    region: {
                      type: 'string',
                      pattern: '^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$',
                      description: 'Lowercase letters, digits and hyphens, such as eu-central-1.',
                    },
                    force_path_style: { type: 'boolean' },
                    cache_control: {
                      type: 'string',
                      pattern: '^[\\x20-\\x7e]{1,256}$',
                      description:
                        "Cache-Control sent with every object; default 'no-cache' (browsers revalidate pages that are overwritten in place).",
                    },
                    connect_timeout_seconds: {
                      type: 'number',
                      exclusiveMinimum: 0,
                      maximum: 3600,
                      description: 'Seconds to wait for a connection to the store (default 5).',
                    },
                    request_timeout_seconds: {
                      type: 'number',
                      exclusiveMinimum: 0,
                      maximum: 3600,
                      description: 'Seconds a request may go without a byte from the store (default 30).',
                    },
                    outputs: OUTPUTS,
                  },
                },
              ],
            },
          },
        },
      },
    },
  },
} as const;

export const ID_PATTERN = new RegExp(ID.pattern, 'u');
export const LANG_PATTERN = new RegExp(LANG.pattern, 'u');
export const BUCKET_PATTERN = new RegExp(
  DISTRIBUTOR_CONFIG_SCHEMA.properties.pipelines.items.properties.destinations.items.oneOf[1].properties
    .bucket.pattern,
  'u',
);
export const PREFIX_PATTERN = new RegExp(
  DISTRIBUTOR_CONFIG_SCHEMA.properties.pipelines.items.properties.destinations.items.oneOf[1].properties
    .prefix.pattern,
  'u',
);
export const REGION_PATTERN = new RegExp(
  DISTRIBUTOR_CONFIG_SCHEMA.properties.pipelines.items.properties.destinations.items.oneOf[1].properties
    .region.pattern,
  'u',
);
export const ENDPOINT_PATTERN = /^https?:\/\/[^\s]+$/;
export const CACHE_CONTROL_PATTERN = new RegExp(
  DISTRIBUTOR_CONFIG_SCHEMA.properties.pipelines.items.properties.destinations.items.oneOf[1].properties
    .cache_control.pattern,
  'u',
);
/** The largest timeout a configuration may set, in seconds. */
export const MAX_TIMEOUT_SECONDS = 3600;

/** The bytes of docs/schemas/distributor-config.schema.json. */
export function configSchemaText(): string {
  return `${JSON.stringify(DISTRIBUTOR_CONFIG_SCHEMA, null, 2)}\n`;
}
