// A dialog's text without its box, read as one text: a sentence it wraps
// over several rows is found whole (it wraps, it never cuts).

export const dialogText = (lines: readonly string[]): string =>
  lines
    .map((l) =>
      l
        .replace(/^.*?│/, '')
        .replace(/│[^│]*$/, '')
        .trim(),
    )
    .join(' ')
    .replace(/\s+/g, ' ');
