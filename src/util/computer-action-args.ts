/**
 * A vendor computer-tool call (`computer` with `{ action, coordinate?, text? }`, docs/computer-use.md)
 * as the live view shows it — `left_click (120, 48)`, `type "hello"`, `key ctrl+s` — rather than its
 * JSON; null for any other call.
 */
export function computerActionArgs(toolName: string, args: unknown): string | null {
  if (toolName !== 'computer' || typeof args !== 'object' || args === null) return null;
  const { action, coordinate, start_coordinate: start, text } = args as Record<string, unknown>;
  if (typeof action !== 'string') return null;
  const point = (value: unknown) =>
    Array.isArray(value) && value.length === 2 ? `(${String(value[0])}, ${String(value[1])})` : null;
  const from = point(start);
  const to = point(coordinate);
  const where = from && to ? ` ${from} → ${to}` : to ? ` ${to}` : '';
  const what =
    typeof text !== 'string' || text === ''
      ? ''
      : action === 'type'
        ? ` ${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)}`
        : ` ${text}`;
  return `${action}${where}${what}`;
}
