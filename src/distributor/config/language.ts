import { nearest } from '../../core/refusal/index.js';

/**
 * Whether a `lang` is a language a reader's browser knows, and if not, the
 * advice: pages declare their language for screen readers, hyphenation and
 * translation, so `english`, `deutsch` or `xx` would be worse than none
 * (docs/distributor.md#pages). The primary language must be one the ICU
 * data of Node names; the rest of the tag must be well formed BCP 47.
 */
export function languageTagProblem(tag: string): string | undefined {
  if (tag.includes('_')) {
    return `write '${tag.replaceAll('_', '-')}': language tags join their parts with a hyphen`;
  }
  let canonical: string | undefined;
  try {
    canonical = Intl.getCanonicalLocales(tag)[0];
  } catch {
    canonical = undefined;
  }
  const primary = (canonical ?? tag).split('-')[0] ?? '';
  if (canonical !== undefined && englishNames().of(primary) !== undefined) return undefined;
  const name = nearest(tag.toLowerCase(), languageNames().keys());
  const known = name === undefined ? undefined : languageNames().get(name);
  return known === undefined
    ? 'a language tag such as en, en-GB or de-CH (BCP 47)'
    : `a language tag such as en, en-GB or de-CH (BCP 47): did you mean '${known}'?`;
}

let english: Intl.DisplayNames | undefined;

/**
 * Made on first use, not when the module loads: ICU's language names took
 * about 4 ms, paid by every command that loads the distributor, most of which
 * never read a `lang` (docs/performance.md, "Starting the CLI").
 */
function englishNames(): Intl.DisplayNames {
  english ??= new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
  return english;
}

let names: ReadonlyMap<string, string> | undefined;

/**
 * Every two-letter language, by its English name and by its own name, in
 * lower case (`german` and `deutsch` → `de`): built once, on the first
 * refused tag only.
 */
function languageNames(): ReadonlyMap<string, string> {
  if (names !== undefined) return names;
  const found = new Map<string, string>();
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (const first of letters) {
    for (const second of letters) {
      const code = `${first}${second}`;
      const inEnglish = englishNames().of(code);
      if (inEnglish === undefined) continue;
      found.set(inEnglish.toLowerCase(), code);
      const own = new Intl.DisplayNames([code], { type: 'language', fallback: 'none' }).of(code);
      if (own !== undefined && !found.has(own.toLowerCase())) found.set(own.toLowerCase(), code);
    }
  }
  names = found;
  return found;
}
