// The user's browser at the test authorization server (provider.mjs): follows redirects
// with its cookies, signs in as `user` on the login form, consents, and stops at the
// redirect back to the client (a loopback /callback), which it then visits.
import assert from 'node:assert/strict';

/** Plays the user's browser from the authorization URL to the redirect back: the
 *  response of visiting it, or (with `visit: false`) its URL. */
export async function consent(authorizationUrl, user, { visit = true } = {}) {
  const cookies = new Map();
  const send = async (url, init = {}) => {
    const headers = { ...(init.headers ?? {}), cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    const r = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const c of r.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return r;
  };
  let url = authorizationUrl;
  for (let step = 0; step < 20; step++) {
    const r = await send(url);
    if (r.status >= 300 && r.status < 400) {
      url = new URL(r.headers.get('location'), url).toString();
      if (new URL(url).pathname === '/callback') return visit ? fetch(url) : url;
      continue;
    }
    const html = await r.text();
    assert.equal(r.status, 200, html.slice(0, 300));
    const action = new URL(html.match(/<form[^>]*action="([^"]+)"/)[1], url).toString();
    const prompt = html.match(/name="prompt" value="(\w+)"/)[1];
    const form = prompt === 'login' ? { prompt, login: user, password: 'any' } : { prompt };
    const posted = await send(action, { method: 'POST', body: new URLSearchParams(form), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    url = new URL(posted.headers.get('location'), action).toString();
  }
  throw new Error('the authorization did not come back');
}

