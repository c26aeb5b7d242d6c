/**
 * A `Content-Disposition` header for a file of any name. Header values are bytes (Latin-1), so a name
 * such as `報告.txt` cannot go into `filename="…"` as it is (Node refuses the header: "Cannot convert
 * argument to a ByteString"). RFC 6266 / RFC 5987: `filename*=UTF-8''…` carries the name
 * percent-encoded, and `filename="…"` an ASCII stand-in for clients that do not read the former.
 */

/** Characters RFC 5987's `attr-char` allows besides letters and digits; everything else is %-encoded. */
const ATTR_CHAR = /[A-Za-z0-9!#$&+\-.^_`|~]/;

/** `報告.txt` → `%E5%A0%B1%E5%91%8A.txt`: the UTF-8 bytes of every character outside `attr-char`. */
function encodeRfc5987(name: string): string {
  let out = '';
  for (const char of name) {
    if (ATTR_CHAR.test(char)) out += char;
    else
      for (const byte of Buffer.from(char, 'utf8'))
        out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * `inline; filename="report.txt"` for a plain ASCII name; for any other, the ASCII stand-in (`_` for
 * each other character) and the exact name in `filename*`. Control characters, quotes and
 * backslashes never reach the header.
 */
export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = name.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 200);
  const ascii = clean.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  if (ascii === clean) return `${kind}; filename="${ascii}"`;
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeRfc5987(clean)}`;
}
