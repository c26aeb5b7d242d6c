/**
 * `512 B`, `1.5 kB`, `512.0 MB`, `1.2 GB`: decimal units, as model hubs show sizes. One formatter for
 * the download progress bar and the web page's "downloads … first", so the two never disagree.
 */
export function formatDecimalBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '?';
  if (bytes < 1000) return `${Math.round(bytes)} B`;
  const units = ['kB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes / 1000;
  let unit = 0;
  // Compare the rounded value so 999.97 MB reads `1.0 GB`, not `1000.0 MB`.
  while (Number(value.toFixed(1)) >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
