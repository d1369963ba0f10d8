/**
 * A word a POSIX shell reads back as it is: left bare when it holds only
 * characters no shell treats specially, else single-quoted. For commands a
 * hint offers to paste.
 */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
