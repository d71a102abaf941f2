// Requests to the server. The access token travels in an HttpOnly cookie,
// never in a URL; POSTs are JSON, the only kind the server accepts.

async function parse(res) {
  const text = await res.text();
  let body = {};
  try { body = text ? JSON.parse(text) : {}; } catch { body = { error: text.trim() }; }
  if (!res.ok && res.status !== 409) throw new Error(body.error || `${res.status} ${res.statusText}`);
  return { status: res.status, body };
}

export async function get(path) {
  return (await parse(await fetch(path, { credentials: "same-origin" }))).body;
}

// post returns {status, body}; a 409 (conflict, busy) is returned, not
// thrown, so callers can offer a way out.
export async function post(path, data) {
  return parse(await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(data),
  }));
}
