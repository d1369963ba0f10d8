import { guardPrivateAsync } from '../private-boundary.js';
import { refuseSynth } from '../refusals.js';
import { type ApplySynthesisOptions, applySynthesisPlan, type SynthesisResult } from './apply.js';
import { planSynthesis, type SynthesizeOptions } from './plan.js';

/**
 * `sealkit evidence synth`: writes a synthetic mapping, dry run and completed
 * run manifest for the canonical retail tables into the new owner-only
 * directory `out` (0700; files 0600). A fixture generator for tests and
 * demos, not a loader: every file is computed with the readers' own
 * constructions, and the dry run and manifest say they are synthetic.
 */
export function synthesizeEvidence(
  options: SynthesizeOptions & { readonly out: string } & ApplySynthesisOptions,
): Promise<SynthesisResult> {
  return guardPrivateAsync(
    () =>
      applySynthesisPlan(planSynthesis(options), options.out, {
        signal: options.signal,
        faults: options.faults,
      }),
    () => refuseSynth('evidence_synth_write_failed'),
  );
}
