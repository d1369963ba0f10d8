import type { CommandEntry } from '../command.js';

/**
 * Every command sealkit has; `sealkit --help` lists them in this order.
 * Each module is imported only when its command runs (see CommandEntry);
 * index.test.ts proves every entry loads the command with its path.
 */
export const COMMANDS: readonly CommandEntry[] = [
  {
    path: ['json', 'canonicalize'],
    portable: true,
    disclosure: 'located',
    summary: 'print the RFC 8785 (or Python-compatible) canonical form of a JSON document',
    load: async () => (await import('./json.js')).jsonCanonicalize,
  },
  {
    path: ['json', 'digest'],
    portable: true,
    disclosure: 'located',
    summary: 'print the SHA-256 of the canonical form of a JSON document',
    load: async () => (await import('./json.js')).jsonDigest,
  },
  {
    path: ['evidence', 'check'],
    portable: false,
    disclosure: 'private',
    summary: 'check that mapping, dry run and run manifest bind (scaffolder input contract)',
    load: async () => (await import('./evidence-check.js')).evidenceCheck,
  },
  {
    path: ['evidence', 'synth'],
    portable: false,
    disclosure: 'private',
    summary: 'write synthetic, owner-only migration evidence (a fixture generator, not a loader)',
    load: async () => (await import('./evidence-synth.js')).evidenceSynth,
  },
  {
    path: ['distribute', 'run'],
    portable: false,
    disclosure: 'located',
    summary: 'validate report bundles and publish them to their destinations',
    load: async () => (await import('./distribute.js')).distributeRunCommand,
  },
  {
    path: ['distribute', 'verify'],
    portable: false,
    disclosure: 'located',
    summary: 'validate one source bundle (manifest, paths, sizes, digests)',
    load: async () => (await import('./distribute.js')).distributeVerifyCommand,
  },
  {
    path: ['distribute', 'manifest'],
    portable: false,
    disclosure: 'located',
    summary: 'write manifest.json for a producer bundle directory',
    load: async () => (await import('./distribute.js')).distributeManifestCommand,
  },
  {
    path: ['edition', 'new'],
    portable: false,
    disclosure: 'located',
    summary: 'create a client workspace from a starter dbt edition (bigquery or snowflake)',
    load: async () => (await import('./edition-new.js')).editionNew,
  },
  {
    path: ['edition', 'check'],
    portable: false,
    disclosure: 'located',
    summary: 'check a dbt project of the starter editions offline (schemas, Jinja, SQL, tests on DuckDB)',
    load: async () => (await import('./edition-check.js')).editionCheck,
  },
  {
    path: ['scaffold'],
    portable: false,
    disclosure: 'private',
    summary: 'generate editable dbt Silver models for one source into a client workspace (create-only)',
    load: async () => (await import('./scaffold.js')).scaffoldCommand,
  },
  {
    path: ['owner', 'verify'],
    portable: true,
    disclosure: 'private',
    summary: 'decode and validate a scoped execution owner document; print R, E, owner and guard epochs',
    load: async () => (await import('./owner.js')).ownerVerify,
  },
  {
    path: ['owner', 'subjects'],
    portable: true,
    disclosure: 'private',
    summary: 'print R, E and (with --attempt) A of a scoped execution owner document',
    load: async () => (await import('./owner.js')).ownerSubjects,
  },
  {
    path: ['contract', 'validate'],
    portable: false,
    disclosure: 'located',
    summary: 'validate a contract project (sources, models, semantic models, dashboards)',
    load: async () => (await import('./contract.js')).contractValidate,
  },
  {
    path: ['contract', 'project'],
    portable: false,
    disclosure: 'located',
    summary: 'print (and with --out write) the canonical leapview.contract/v1 projections and digests',
    load: async () => (await import('./contract.js')).contractProject,
  },
  {
    path: ['contract', 'schemas'],
    portable: false,
    disclosure: 'located',
    summary: 'write the JSON Schemas of contract resources and projections (for editors)',
    load: async () => (await import('./contract.js')).contractSchemas,
  },
  {
    path: ['contract', 'classify'],
    portable: true,
    disclosure: 'located',
    summary: 'classify the change between two canonical contract projections',
    load: async () => (await import('./contract-classify.js')).contractClassify,
  },
  {
    path: ['contract', 'publish'],
    portable: false,
    disclosure: 'located',
    summary: 'classify and append contract publications to the append-only ledger',
    load: async () => (await import('./contract-publish.js')).contractPublish,
  },
  {
    path: ['contract', 'history'],
    portable: false,
    disclosure: 'located',
    summary: 'list the publications of a contract resource',
    load: async () => (await import('./contract-history.js')).contractHistory,
  },
  {
    path: ['contract', 'replay'],
    portable: false,
    disclosure: 'located',
    summary: 're-validate the whole contract publication ledger',
    load: async () => (await import('./contract-replay.js')).contractReplay,
  },
  {
    path: ['contract', 'affected'],
    portable: false,
    disclosure: 'located',
    summary: 'list the dashboards that depend, transitively, on a resource',
    load: async () => (await import('./contract-affected.js')).contractAffected,
  },
];
