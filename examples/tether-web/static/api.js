// Requests to the server. The access token travels in an HttpOnly cookie,
// never in a URL; POSTs are JSON, the only kind the server accepts.
//
// Every API request also carries the page secret. The browser sends the
// cookie to every server on this host, whatever its port; the secret only
// this page holds. The token trade hands it over in the URL's fragment
// (#secret=…), which no server receives; it is kept in sessionStorage (this
// tab, reloads included) and removed from the address bar at once.

const SECRET_KEY = "tether_page_secret";
{
  const m = /^#secret=([0-9a-f]+)$/.exec(location.hash);
  if (m) {
    sessionStorage.setItem(SECRET_KEY, m[1]);
    history.replaceState(null, "", location.pathname + location.search);
  }
}

export function pageSecret() {
  return sessionStorage.getItem(SECRET_KEY) || "";
}

async function parse(res) {
  const text = await res.text();
  let body = {};
  try { body = text ? JSON.parse(text) : {}; } catch { body = { error: text.trim() }; }
  if (!res.ok && res.status !== 409) throw new Error(body.error || `${res.status} ${res.statusText}`);
  return { status: res.status, body };
}

export async function get(path) {
  return (await parse(await fetch(path, {
    credentials: "same-origin",
    headers: { "X-Tether-Secret": pageSecret() },
  }))).body;
}

// post returns {status, body}; a 409 (conflict, busy) is returned, not
// thrown, so callers can offer a way out.
export async function post(path, data) {
  return parse(await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-Tether-Secret": pageSecret() },
    body: JSON.stringify(data),
  }));
}
