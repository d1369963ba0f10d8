import stringWidth from 'string-width';

/**
 * Rows as aligned text columns, two spaces apart, the last column unpadded
 * and no trailing space. Widths are terminal columns (string-width: a CJK
 * character takes two, a combining mark none), not UTF-16 code units, so a
 * bundle named `報告/2026` keeps the columns after it in line.
 */
export function table(rows: readonly (readonly string[])[]): string {
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, column) =>
    Math.max(0, ...rows.map((row) => stringWidth(row[column] ?? ''))),
  );
  return rows
    .map((row) =>
      row
        .map((cell, column) =>
          column === row.length - 1 ? cell : cell + ' '.repeat((widths[column] ?? 0) - stringWidth(cell)),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
