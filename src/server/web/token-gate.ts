import type { MiddlewareHandler } from 'hono';
import { anySameToken, cookieName, sameToken, tokensFromRequest } from './auth.js';
import type { HostAllowList } from './guard.js';

/**
 * `massgen --web`'s token check, before every route: a request without the token (header, `?token=`
 * or the page's cookie) is refused with 401. The page's own address carries the token once: it is
 * kept in an HttpOnly, SameSite=Strict cookie for the page's requests and socket, and a typed or
 * bookmarked address is sent on to the clean one.
 */
export function tokenGate(
  token: string,
  /** Its port is known only once the server listens: read at each request. */
  hosts: HostAllowList,
  isApi: (path: string) => boolean,
): MiddlewareHandler {
  return async (c, next) => {
    if (!anySameToken(tokensFromRequest(c.req.raw, cookieName(hosts.port)), token)) {
      const message = `massgen --web needs its token: open the address it printed (http://…/?token=…), or restart it with --no-auth`;
      return isApi(c.req.path) ? c.json({ error: message }, 401) : c.text(message, 401);
    }
    // The page's address carried the token: keep it in a cookie for the page's own requests and socket.
    const fromQuery = c.req.query('token');
    if (isApi(c.req.path) || c.req.method !== 'GET' || !fromQuery || !sameToken(fromQuery, token))
      return next();
    const cookie = `${cookieName(hosts.port)}=${token}; HttpOnly; SameSite=Strict; Path=/`;
    const site = c.req.header('sec-fetch-site');
    if (site === 'none' || site === 'same-origin') {
      // Typed, opened by --open, or bookmarked: send the browser on to the clean address at once. (After
      // a link from another site a Strict cookie would not follow the redirect: the page drops the token
      // from the address bar itself.)
      const url = new URL(c.req.url);
      url.searchParams.delete('token');
      c.header('Set-Cookie', cookie);
      c.header('Cache-Control', 'no-store');
      return c.redirect(`${url.pathname}${url.search}`, 302);
    }
    await next();
    c.header('Set-Cookie', cookie);
  };
}
