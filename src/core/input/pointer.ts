/**
 * Key paths as sealkit prints them: `pipelines[0].destinations[1].outputs`.
 * A key that is not identifier-shaped is quoted (`labels["cost center"]`) so
 * a path reads back unambiguously.
 */
export type PathSegment = string | number;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export function pointerOf(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
