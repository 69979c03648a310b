// The REST half of the protocol: rooms, solo games, joining, history.

export class ApiError extends Error {
  constructor(status, detail) {
    super(typeof detail === "string" ? detail : describe(detail));
    this.status = status;
    this.detail = detail;
  }
}

function describe(detail) {
  if (Array.isArray(detail)) {
    return detail
      .map((d) => `${(d.loc || []).filter((p) => p !== "body").join(".")}: ${d.msg}`)
      .join("; ");
  }
  return detail ? JSON.stringify(detail) : "request failed";
}

// No answer at all (the server is down, or this device is offline): status 0, in words.
export const UNREACHABLE = "Can't reach the server. Check your connection and try again in a moment.";

async function call(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, UNREACHABLE);
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const fallback = response.status === 429 ? "Too many requests, try again in a minute"
      : response.status >= 502 ? "The server is busy or restarting. Try again in a moment."
      : `HTTP ${response.status}`;
    throw new ApiError(response.status, (data && data.detail) || fallback);
  }
  return data;
}

export const createRoom = (body) => call("POST", "/api/rooms", body);
export const createSolo = (body) => call("POST", "/api/solo", body);
export const listRooms = () => call("GET", "/api/rooms");
export const getRoom = (code) => call("GET", `/api/rooms/${encodeURIComponent(code)}`);
export const joinRoom = (code, body) => call("POST", `/api/rooms/${encodeURIComponent(code)}/join`, body);
export const roomHistory = (code) => call("GET", `/api/rooms/${encodeURIComponent(code)}/history`);
