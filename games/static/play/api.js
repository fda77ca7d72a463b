// The REST API at /api/v1/: a token kept in localStorage, JSON in and out, errors as
// ApiError {status, code, detail}, and a match's live event stream read with fetch().

const TOKEN_KEY = "euchre.token";
const USER_KEY = "euchre.username";
const BASE = "/api/v1/";

export class ApiError extends Error {
  constructor(status, code, detail, body) {
    super(detail);
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.body = body || {};
  }
}

export function session() {
  const token = localStorage.getItem(TOKEN_KEY);
  return token ? { token, username: localStorage.getItem(USER_KEY) || "" } : null;
}

export function setSession(token, username) {
  localStorage.setItem(TOKEN_KEY, token);
  localStorage.setItem(USER_KEY, username);
}

export function clearSession() {
  localStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(USER_KEY);
}

function headers(extra) {
  const result = { Accept: "application/json", ...extra };
  const current = session();
  if (current) result.Authorization = `Token ${current.token}`;
  return result;
}

// One request. Resolves to the JSON body (null for 204); rejects with ApiError.
export async function api(method, path, body) {
  const init = { method, headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  let response;
  try {
    response = await fetch(BASE + path, init);
  } catch (err) {
    throw new ApiError(0, "network_error", "The service could not be reached. Check the connection and try again.");
  }
  if (response.status === 204) return null;
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    data = null;
  }
  if (!response.ok) {
    const code = (data && data.code) || `http_${response.status}`;
    let detail = (data && data.detail) || `The service answered ${response.status}.`;
    if (data && data.errors) {
      const fields = Object.entries(data.errors).map(([k, v]) => `${k}: ${[].concat(v).join(" ")}`);
      if (fields.length) detail += ` (${fields.join("; ")})`;
    }
    if (response.status === 401 && session()) {
      clearSession();
      window.dispatchEvent(new CustomEvent("euchre:signed-out"));
    }
    throw new ApiError(response.status, code, detail, data);
  }
  return data;
}

// A minimal text/event-stream parser: feed it text, it calls onMessage({id, event, data})
// for each complete message, and onComment(text) for comment lines (": keep-alive").
export function sseParser(onMessage, onComment = () => {}) {
  let buffer = "";
  let message = { id: null, event: "message", data: [] };
  function line(text) {
    if (text === "") {
      if (message.data.length) {
        onMessage({ id: message.id, event: message.event, data: message.data.join("\n") });
      }
      message = { id: null, event: "message", data: [] };
      return;
    }
    if (text.startsWith(":")) {
      onComment(text);
      return;
    }
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "id") message.id = value;
    else if (field === "event") message.event = value;
    else if (field === "data") message.data.push(value);
  }
  return function feed(chunk) {
    buffer += chunk;
    let match;
    while ((match = /\r\n|\r|\n/.exec(buffer)) !== null) {
      // A lone "\r" at the end may be the first half of "\r\n": wait for more.
      if (match[0] === "\r" && match.index === buffer.length - 1) break;
      line(buffer.slice(0, match.index));
      buffer = buffer.slice(match.index + match[0].length);
    }
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const SILENT_MS = 45000;

// Follows GET matches/{id}/stream?after=N. Calls onEvent(event) for each match event,
// reconnects after a dropped connection with after=<last seq>, stops when the server
// answers 204 (nothing more will come), and calls onUnavailable() when there is no
// stream to follow here (an error other than 5xx/429, or 503 stream_needs_asgi from a
// WSGI process): the caller polls instead. onConnected(true/false) says whether the
// stream is up, so that the caller can poll while it is down; onKeepAlive() is called at
// each keep-alive (a quiet moment to look at who is at the table); onReady() once the
// stream's first line has come (the server counts the stream, a spectator's as watching,
// before it sends it). Returns a stop function.
export function followMatch(matchId, after, { onEvent, onUnavailable, onConnected = () => {}, onKeepAlive = () => {}, onReady = () => {} }) {
  let stopped = false;
  let controller = null;
  let last = after;

  async function run() {
    let backoff = 500;
    while (!stopped) {
      const current = new AbortController();
      controller = current;
      // The server sends a keep-alive comment every 15 s or so: a connection silent for
      // much longer is dead without having said so; drop it and reconnect.
      let watchdog = setTimeout(() => current.abort(), SILENT_MS);
      const alive = () => {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => current.abort(), SILENT_MS);
      };
      try {
        const response = await fetch(`${BASE}matches/${matchId}/stream?after=${last}`, {
          headers: headers({ Accept: "text/event-stream" }),
          signal: current.signal,
          cache: "no-store",
        });
        if (response.status === 204) return;
        if (!response.ok || !response.body) {
          let code = "";
          try {
            code = (await response.json()).code || "";
          } catch (err) {
            code = "";
          }
          const transient = (response.status >= 500 || response.status === 429) && code !== "stream_needs_asgi";
          if (transient) throw new Error(`stream ${response.status}`);
          if (onUnavailable) onUnavailable(response.status, code);
          return;
        }
        backoff = 500;
        onConnected(true);
        const feed = sseParser((message) => {
          if (message.event !== "match_event") return;
          let event;
          try {
            event = JSON.parse(message.data);
          } catch (err) {
            return;
          }
          const seq = Number(event.seq ?? message.id);
          if (Number.isFinite(seq) && seq > last) last = seq;
          onEvent(event);
        }, onKeepAlive);
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let first = true;
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          alive();
          feed(value);
          if (first) onReady();
          first = false;
        }
        // The server closed the stream: after a finished match's last event the next
        // connection answers 204; otherwise this reconnects from the last seq.
      } catch (err) {
        if (stopped) return;
      } finally {
        clearTimeout(watchdog);
      }
      if (stopped) return;
      onConnected(false);
      await sleep(backoff);
      backoff = Math.min(backoff * 2, 10000);
    }
  }

  run();
  return () => {
    stopped = true;
    if (controller) controller.abort();
  };
}
