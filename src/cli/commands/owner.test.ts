import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import { scanForSentinels } from '../../../test/helpers/sentinels.js';
import { at } from '../../core/list/index.js';
import { buildOwner, type Data, type OwnerSpec, toCanonical } from '../../owner/fixtures/build.js';
import { MSSQL_CLICKHOUSE } from '../../owner/fixtures/cells.js';
import type { Mutable } from '../../owner/fixtures/json-path.js';

/** `sealkit owner verify|subjects` run as real processes on real files. */

const SENTINELS = ['ZqSecretDb', 'ZqSecretTable', 'zqsecret-svc', 'customer_owner_zq'];

function plantedSpec(): OwnerSpec {
  const spec = structuredClone(MSSQL_CLICKHOUSE) as Mutable<OwnerSpec>;
  for (const domain of spec.domains) {
    domain.serviceId = `zqsecret-svc-${domain.key}`;
    for (const object of domain.objects) {
      object.name =
        object.name.length === 2
          ? [`ZqSecretDb_${domain.key}`, `ZqSecretTable_${object.id}`]
          : ['ZqSecretDb', at(object.name, 1), `ZqSecretTable_${object.id}`];
    }
  }
  return spec as OwnerSpec;
}

function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const EXPECTED_FORM =
  '--expected-sha256 takes 64 lowercase hex digits, bare or as sha256:<hex>; the value given is not of that form';

describe('sealkit owner', () => {
  let dir: string;
  let ownerFile: string;
  let digest: string;
  let bytes: Buffer;
  const files: Record<string, string> = {};
  const built = buildOwner(plantedSpec());

  function write(name: string, data: Uint8Array | string): string {
    const path = join(dir, name);
    writeFileSync(path, data);
    return path;
  }

  beforeAll(() => {
    // Sentinels in the directory and file names, too: no output may name them.
    dir = mkdtempSync(join(tmpdir(), 'sealkit-owner-customer_owner_zq-'));
    ({ bytes, sha256: digest } = toCanonical(built.owner));
    ownerFile = write('customer_owner_zq.json', bytes);
    files.qualificationOwner = write('qualification-owner.json', toCanonical(built.qualificationOwner).bytes);
    files.qualificationGrant = write('qualification-grant.json', toCanonical(built.qualificationGrant).bytes);
    files.executionGrant = write('execution-grant.json', toCanonical(built.executionGrant).bytes);
    files.attempt = write('attempt.json', toCanonical(built.attempts.invoices as Data).bytes);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function originalsArgs(): string[] {
    return [
      '--qualification-owner',
      files.qualificationOwner as string,
      '--qualification-grant',
      files.qualificationGrant as string,
      '--execution-grant',
      files.executionGrant as string,
    ];
  }

  it('verifies a document and prints R, E, the owner reference and every guard epoch', () => {
    const run = runCli(['owner', 'verify', ownerFile, '--expected-sha256', digest]);
    expect(run.status).toBe(0);
    const text = run.stdout.toString();
    const request = built.request;
    expect(text).toContain(`owner reference: execution ${request.activation_id}`);
    expect(text).toContain(`R (request): sha256:${sha256(toCanonical(request).bytes)}`);
    expect(text).toContain(`E (owner subject): sha256:${digest}`);
    expect(text).toContain('originals: not supplied');
    for (const move of (built.owner.handoff as Data).epochs as Data[]) {
      expect(text).toContain(`  ${move.guard_id} ${move.execution_epoch}\n`);
    }
    expect(run.stderr.length).toBe(0);
  });

  it('prints one JSON object with --json, epochs as exact decimal strings, and requires the originals', () => {
    const run = runCli([
      'owner',
      'verify',
      ownerFile,
      '--expected-sha256',
      digest,
      ...originalsArgs(),
      '--json',
    ]);
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout.toString()) as Record<string, unknown>;
    expect(out).toMatchObject({
      status: 'ok',
      owner_key: `execution:${built.request.activation_id}`,
      subject_sha256: digest,
      originals: 'matched',
    });
    const epochs = out.guard_epochs as { execution_epoch: string }[];
    // The ClickHouse fixture's epoch is beyond 2^53: a JSON number would round it.
    expect(epochs.map((e) => e.execution_epoch)).toContain('9007199254740994');
  });

  it('prints R, E and A, and the epochs the attempt workload selects', () => {
    const run = runCli([
      'owner',
      'subjects',
      ownerFile,
      '--expected-sha256',
      digest,
      '--attempt',
      files.attempt as string,
    ]);
    expect(run.status).toBe(0);
    const lines = run.stdout.toString().split('\n');
    expect(lines[0]).toBe(`R sha256:${sha256(toCanonical(built.request).bytes)}`);
    expect(lines[1]).toBe(`E sha256:${digest}`);
    expect(lines[2]).toBe(`A sha256:${sha256(toCanonical(built.attempts.invoices).bytes)}`);
    // --bare prints the hex alone, and the expected digest may be given as sealkit prints it.
    const bare = runCli(['owner', 'subjects', ownerFile, '--expected-sha256', `sha256:${digest}`, '--bare']);
    expect(bare.status).toBe(0);
    expect(bare.stdout.toString().split('\n').slice(0, 2)).toEqual([
      `R ${sha256(toCanonical(built.request).bytes)}`,
      `E ${digest}`,
    ]);
    const json = runCli(['owner', 'subjects', '-', '--expected-sha256', digest, '--json'], { input: bytes });
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout.toString())).toEqual({
      status: 'ok',
      request_sha256: sha256(toCanonical(built.request).bytes),
      subject_sha256: digest,
    });
  });

  function refused(
    args: readonly string[],
    input?: Uint8Array,
  ): { code: string; run: ReturnType<typeof runCli> } {
    const before = readdirSync(dir).sort();
    const run = runCli([...args, '--json'], input === undefined ? {} : { input });
    expect(run.status, run.stderr.toString()).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(before);
    const human = runCli(args, input === undefined ? {} : { input });
    expect(human.status, human.stderr.toString()).toBe(2);
    expect(human.stdout.length).toBe(0);
    // The directory holds the planted inputs; that nothing was written there is the listing check above.
    for (const capture of [run, human]) expect(scanForSentinels(capture, [], SENTINELS)).toEqual([]);
    return { code: (JSON.parse(run.stdout.toString()) as { reason_code: string }).reason_code, run: human };
  }

  it('refuses a one-byte change: by the expected digest, and by the rules when the digest follows the change', () => {
    const changed = Buffer.from(bytes);
    changed[changed.indexOf('ZqSecretTable_ch_invoices')] = 'z'.charCodeAt(0);
    const file = write('changed.json', changed);
    expect(refused(['owner', 'verify', file, '--expected-sha256', digest]).code).toBe(
      'scoped_execution_subject',
    );
    const { code, run } = refused(['owner', 'verify', file, '--expected-sha256', sha256(changed)]);
    expect(code).toBe('scoped_execution_write_binding');
    expect(run.stderr.toString()).toMatch(
      /^error\[scoped_execution_write_binding\]: [^\n]+\n {2}= in: owner\n {2}= field: workloads\[\]\.write_bindings\[\]\.write\n$/,
    );
  });

  it('regression: a pretty-printed copy is refused naming the canonicalizer, whose bytes then verify', () => {
    // An ordinary serializer: indented, with a final newline (python keeps the 2^63 - 1 epochs exact).
    const indent = spawnSync(
      'python3',
      [
        '-c',
        'import json,sys; json.dump(json.load(sys.stdin), sys.stdout, indent=2, ensure_ascii=False); print()',
      ],
      { input: bytes },
    );
    expect(indent.status).toBe(0);
    const pretty = write('pretty.json', indent.stdout);
    const { code, run } = refused(['owner', 'verify', pretty, '--expected-sha256', digest]);
    expect(code).toBe('scoped_execution_subject');
    expect(run.stderr.toString()).toContain('`sealkit json digest --python`');
    expect(
      refused(['owner', 'verify', pretty, '--expected-sha256', sha256(indent.stdout)]).run.stderr.toString(),
    ).toContain('`sealkit json canonicalize --python`');
    // What docs/owner.md says to do: the canonical bytes, and their digest, which is E.
    const digested = runCli(['json', 'digest', '--python', '--bare', pretty]);
    expect(digested.stdout.toString().trim()).toBe(digest);
    const canonical = runCli(['json', 'canonicalize', '--python', pretty]);
    expect(Buffer.compare(canonical.stdout, bytes)).toBe(0);
    const canonicalFile = write('canonical.json', canonical.stdout);
    expect(runCli(['owner', 'verify', canonicalFile, '--expected-sha256', digest]).status).toBe(0);
  });

  it('refuses originals that differ and an attempt of another owner', () => {
    const grant = structuredClone(built.executionGrant);
    grant.scope_sha256 = '0'.repeat(64);
    const otherGrant = write('other-grant.json', toCanonical(grant).bytes);
    const args = originalsArgs();
    args[5] = otherGrant;
    expect(refused(['owner', 'verify', ownerFile, '--expected-sha256', digest, ...args]).code).toBe(
      'scoped_execution_originals',
    );
    const another = buildOwner({ ...plantedSpec(), seed: 'another-activation' });
    const attempt = write('other-attempt.json', toCanonical(another.attempts.invoices).bytes);
    expect(
      refused(['owner', 'subjects', ownerFile, '--expected-sha256', digest, '--attempt', attempt]).code,
    ).toBe('scoped_execution_attempt');
  });

  it('refuses a missing file and a document over 8 MiB', () => {
    expect(
      refused(['owner', 'verify', join(dir, 'absent_customer_owner_zq.json'), '--expected-sha256', digest])
        .code,
    ).toBe('input_missing');
    const big = write('big.json', '');
    truncateSync(big, 8 * 1024 * 1024 + 1);
    expect(refused(['owner', 'verify', big, '--expected-sha256', digest]).code).toBe(
      'scoped_execution_document',
    );
  });

  it('regression: a missing original names which of the five inputs it is', () => {
    const absent = join(dir, 'absent-execution-grant.json');
    const args = ['owner', 'verify', ownerFile, '--expected-sha256', digest, ...originalsArgs()];
    args[args.indexOf(files.executionGrant as string)] = absent;
    const { code, run } = refused(args);
    expect(code).toBe('input_missing');
    expect(run.stderr.toString()).toBe(
      'error[input_missing]: the input file does not exist\n  = in: execution_grant\n',
    );
    const json = JSON.parse(runCli([...args, '--json']).stdout.toString()) as { role?: string };
    expect(json.role).toBe('execution_grant');
  });

  it('regression: a malformed grant names which of the two grants it is', () => {
    const malformed = write('malformed-grant.json', '{"schema":');
    for (const [flag, role] of [
      ['--qualification-grant', 'qualification_grant'],
      ['--execution-grant', 'execution_grant'],
    ] as const) {
      const args = ['owner', 'verify', ownerFile, '--expected-sha256', digest, ...originalsArgs()];
      args[args.indexOf(flag) + 1] = malformed;
      const { code, run } = refused(args);
      expect(code).toBe('scoped_execution_originals');
      expect(run.stderr.toString()).toMatch(
        new RegExp(`^error\\[scoped_execution_originals\\]: [^\\n]+\\n {2}= in: ${role}\\n$`),
      );
      const json = JSON.parse(runCli([...args, '--json']).stdout.toString()) as { role?: string };
      expect(json.role).toBe(role);
    }
  });

  it('regression: two inputs given as - are a usage error, before anything is read', () => {
    const run = runCli(['owner', 'subjects', '-', '--expected-sha256', digest, '--attempt', '-'], {
      input: bytes,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.toString()).toContain('only one input can be - (standard input)');
  });

  it.each([
    [
      'an empty FILE',
      ['owner', 'verify', '', '--expected-sha256', 'DIGEST'],
      'argument FILE is an empty string',
    ],
    [
      'an empty --expected-sha256',
      ['owner', 'verify', 'FILE', '--expected-sha256', ''],
      '--expected-sha256 takes a value, not an empty string: --expected-sha256 HEX',
    ],
    [
      'an empty --attempt',
      ['owner', 'subjects', 'FILE', '--expected-sha256', 'DIGEST', '--attempt', ''],
      '--attempt takes a value, not an empty string: --attempt FILE',
    ],
    ['a digest that is not hex', ['owner', 'verify', 'FILE', '--expected-sha256', 'NOTHEX'], EXPECTED_FORM],
    ['a digest too short', ['owner', 'subjects', 'FILE', '--expected-sha256', 'sha256:abc'], EXPECTED_FORM],
  ])('regression: %s is a usage error naming the flag, before anything is read', (_case, args, message) => {
    const filled = args.map((arg) => (arg === 'DIGEST' ? digest : arg === 'FILE' ? ownerFile : arg));
    const run = runCli(filled);
    expect(run.status).toBe(1);
    expect(run.stdout.length).toBe(0);
    expect(run.stderr.toString().split('\n')[0]).toBe(`sealkit: ${message}`);
    expect(scanForSentinels(run, [], SENTINELS)).toEqual([]);
  });

  it('regression: an upper-case digest is a usage error saying to write it in lower case, never echoed', () => {
    for (const given of [digest.toUpperCase(), `sha256:${digest.toUpperCase()}`]) {
      const run = runCli(['owner', 'verify', ownerFile, '--expected-sha256', given, '--json']);
      expect(run.status).toBe(1);
      expect(JSON.parse(run.stdout.toString())).toEqual({
        status: 'usage_error',
        reason_code: 'usage',
        message: EXPECTED_FORM,
        hint: 'write the hex digits in lower case',
      });
      expect(run.stdout.toString().toLowerCase()).not.toContain(digest);
    }
  });

  it('treats missing or partial arguments as usage errors that read and write nothing', () => {
    const before = readdirSync(dir).sort();
    for (const args of [
      ['owner', 'verify', ownerFile],
      ['owner', 'verify', '--expected-sha256', digest],
      ['owner', 'verify', ownerFile, '--expected-sha256', digest, '--qualification-owner', ownerFile],
      ['owner', 'subjects', ownerFile, '--expected-sha256', digest, '--bogus'],
      ['owner', 'subjects', ownerFile, ownerFile, '--expected-sha256', digest],
    ]) {
      const run = runCli(args);
      expect(run.status).toBe(1);
      expect(run.stdout.length).toBe(0);
    }
    expect(readdirSync(dir).sort()).toEqual(before);
    const help = runCli(['owner', 'verify', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout.toString()).toContain('Usage: sealkit owner verify FILE --expected-sha256 HEX');
  });
});
