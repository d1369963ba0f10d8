/**
 * The four verdicts of the version classifier, from harmless to harmful for
 * readers. `widening` sits between `compatible` and `breaking`: existing
 * readers keep working, but they may now receive values (or be seen by an
 * audience) that the baseline excluded, so a publication needs an explicit
 * approval rather than a major version.
 */
export type ContractVerdict = 'identical' | 'compatible' | 'widening' | 'breaking';

/** The verdict of one change: a change is never `identical`. */
export type ChangeVerdict = Exclude<ContractVerdict, 'identical'>;

export const VERDICTS: readonly ContractVerdict[] = ['identical', 'compatible', 'widening', 'breaking'];

const RANK: Readonly<Record<ContractVerdict, number>> = {
  identical: 0,
  compatible: 1,
  widening: 2,
  breaking: 3,
};

/** The more harmful of two verdicts. */
export function worstVerdict(a: ContractVerdict, b: ContractVerdict): ContractVerdict {
  return RANK[a] >= RANK[b] ? a : b;
}
