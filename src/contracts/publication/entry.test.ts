import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import npmCanonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { expectGolden } from '../../../test/helpers/golden.js';
import { canonicalize } from '../../core/json/index.js';
import { exampleGolden, filesOf } from '../fixtures/resources.js';
import { contractProjectFromFiles } from '../project/open.js';
import { entryHashDocument } from './entry.js';
import { approvalOf } from './fixtures.js';
import { planLatestPublication } from './publish.js';
import { emptyResourceIndex, IndexBuilder } from './resource-index.js';
import { ledgerSqlError } from './session.js';
import { emptyLedgerState } from './state.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ORDERS = 'retail.source.orders';

describe('ledger entries', () => {
  it('hash the same documents as the golden file (genesis and an approved widening of the example)', async () => {
    const yaml = readFileSync(join(exampleGolden(), '..', 'retail', 'sources', 'orders.yaml'), 'utf8');
    const widened = yaml
      .replace('type: decimal(12,2)', 'type: decimal(14,2)')
      .replace('version: 1.3.0', 'version: 1.4.0');
    const v13 = (await contractProjectFromFiles(filesOf({ 'orders.yaml': yaml }))).project(ORDERS);
    const v14 = (await contractProjectFromFiles(filesOf({ 'orders.yaml': widened }))).project(ORDERS);
    expect(
      Buffer.from(v13.bytes).equals(readFileSync(join(exampleGolden(), 'resources', `${ORDERS}.json`))),
    ).toBe(true);

    const genesis = planLatestPublication(emptyLedgerState([ORDERS]), [v13], null);
    const first = genesis.items[0]?.entry;
    if (first === undefined || first === null) throw new Error('no genesis entry');
    const index = new IndexBuilder(emptyResourceIndex([ORDERS]));
    expect(index.commit(ORDERS, first.entryHash)).toBe(first.bucketDigest);
    const state = {
      head: { position: 1, entryHash: first.entryHash },
      resources: new Map([[ORDERS, [first]]]),
      index: index.snapshot(),
    };
    const approval = approvalOf(`${ORDERS}@1.4.0`);
    const second = planLatestPublication(state, [v14], approval).items[0]?.entry;
    if (second === undefined || second === null) throw new Error('no widening entry');

    const documents = [first, second].map((entry) => ({
      document: entryHashDocument(entry),
      entry_hash: entry.entryHash,
    }));
    expectGolden(join(HERE, 'golden', 'entries.json'), `${canonicalize(documents)}\n`);
    // The resource index, rebuilt independently: 256 buckets by the first byte of SHA-256(id), each
    // the digest of its [id, latest entry hash] members; the root the digest of the 256 in order.
    const sha = (text: string) => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
    const bucket = createHash('sha256').update(ORDERS, 'utf8').digest()[0] as number;
    const empty = new Array<string>(256).fill(sha('[]'));
    const afterFirst = empty.map((digest, at) =>
      at === bucket ? sha(npmCanonicalize([[ORDERS, first.entryHash]]) as string) : digest,
    );
    expect(first.resourceIndex).toBe(sha(npmCanonicalize(empty) as string));
    expect(second.resourceIndex).toBe(sha(npmCanonicalize(afterFirst) as string));
    expect(first.bucketDigest).toBe(afterFirst[bucket]);
    expect(second.bucketDigest).toBe(sha(npmCanonicalize([[ORDERS, second.entryHash]]) as string));
    // An independent RFC 8785 implementation and SHA-256 give the same entry hashes.
    for (const { document, entry_hash } of documents) {
      const hex = createHash('sha256')
        .update(npmCanonicalize(document) as string, 'utf8')
        .digest('hex');
      expect(`sha256:${hex}`).toBe(entry_hash);
    }
  });

  it('keep only the SQLSTATE and constraint of a driver error, never its text', () => {
    const error = ledgerSqlError({
      code: '23505',
      constraint: 'publications_one_successor',
      message: 'duplicate key value (resource_id)=(zq.sentinel) violates ...',
      detail: 'Key (resource_id, baseline)=(zq.sentinel, genesis) already exists.',
    });
    expect(error.sqlstate).toBe('23505');
    expect(error.constraint).toBe('publications_one_successor');
    expect(`${error.message} ${JSON.stringify(error)}`).not.toContain('sentinel');
    expect(ledgerSqlError({ code: 'not a state; drop table', constraint: 'Robert"); --' })).toMatchObject({
      sqlstate: undefined,
      constraint: undefined,
    });
  });
});
