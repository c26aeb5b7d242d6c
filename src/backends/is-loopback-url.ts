/**
 * True when `url` points at this machine (`localhost`, `127.0.0.0/8`, `::1`): local servers usually
 * need no API key.
 */
export function isLoopbackUrl(url: string | undefined): boolean {
  if (url === undefined) return false;
  let hostname: string;
  try {
    hostname = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (hostname.startsWith('[') && hostname.endsWith(']')) hostname = hostname.slice(1, -1);
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '::1' ||
    /^127(?:\.\d{1,3}){3}$/.test(hostname)
  );
}
