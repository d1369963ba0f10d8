import { VERSION_PATTERN } from '../authoring/identifiers.js';

/** MAJOR.MINOR.PATCH; the projection schema already guarantees the pattern (each part below 2^31). */
export interface ContractVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

export function parseContractVersion(text: string): ContractVersion | undefined {
  if (!VERSION_PATTERN.test(text)) return undefined;
  const [major, minor, patch] = text.split('.').map(Number) as [number, number, number];
  return { major, minor, patch };
}

/** Negative, zero or positive as `a` is lower than, equal to or higher than `b`. */
export function compareContractVersions(a: ContractVersion, b: ContractVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}
