/**
 * CSV (RFC 4180) or TSV into rows of cells: quoted fields may hold the separator, newlines and doubled
 * quotes; CRLF or LF line ends; a final line end adds no empty row. Stops after `maxRows` rows and says
 * so. Lenient like a spreadsheet: a stray quote inside an unquoted field is kept as text.
 */
export function parseDelimited(
  text: string,
  separator = ',',
  maxRows = 1000,
): { rows: string[][]; truncated: boolean } {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  const endRow = () => {
    row.push(field);
    rows.push(row);
    row = [];
    field = '';
  };
  while (i < text.length) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else field += ch;
      i++;
      continue;
    }
    if (ch === '"' && field === '') quoted = true;
    else if (ch === separator) {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRow();
      if (rows.length >= maxRows) return { rows, truncated: i + 1 < text.length };
    } else field += ch;
    i++;
  }
  if (field !== '' || row.length > 0 || quoted) endRow();
  return { rows, truncated: false };
}

/** The separator for a file name: tab for `.tsv`/`.tab`, else comma. */
export const separatorFor = (path: string): string => (/\.(tsv|tab)$/i.test(path) ? '\t' : ',');
