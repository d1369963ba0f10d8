/** A flag's value as typed, quoted; a control character is shown escaped, never sent to the terminal. */
export function quotedValue(value: string): string {
  let shown = '';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    shown +=
      code < 0x20 || (code >= 0x7f && code <= 0x9f) ? `\\u${code.toString(16).padStart(4, '0')}` : char;
  }
  return `'${shown}'`;
}
