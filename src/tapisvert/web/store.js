// What the page knows: the session, the lobby, the tables followed and their latest views. The
// socket's frames update it; components read it and re-render when it says it changed.
import { language, loadTexts, recorded, say, t } from "./i18n.js";

export const state = {
  token: localStorage.getItem("token"),
  user: localStorage.getItem("user"),
  guest: localStorage.getItem("guest") === "yes",
  roles: [],         // this person's roles: administrator, moderator (from /api/moderation/me)
  socket: null,
  connected: false,
  room: localStorage.getItem("room") || "main",
  rooms: [],
  roomInfo: null,
  tables: {},        // table id -> table info
  views: {},         // table id -> latest view frame, merged
  logs: { room: [], table: {}, tournament: {} },   // chat, notices and moves in words (tournaments: by room)
  games: [],         // the games' specs, from /api/games
  boards: {},        // game name -> its board module
  notice: null,      // { text, kind, about }: a refusal or a message for the person
  replay: null,
  inviting: null,    // a table just opened to play with friends: its invitation link gets the focus
  rematches: {},     // finished table id -> the rematch table id
  held: {},          // table id -> { trick, until }: a completed trick shown before it is gathered
  summaries: {},     // table id -> the summary of the round or deal that just ended
  sound: localStorage.getItem("sound") === "on",
  requests: 0,
  pending: {},       // request id -> what to do with its answer
  outbox: [],        // messages written while the page was (re)connecting
};

/** What other modules do with frames, by type (`social`, `message`…), after the store's own. */
export const frameHandlers = {};

const listeners = new Set();
export function subscribe(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
export function changed() {
  for (const listener of listeners) listener();
}

/** A banner for the person; `about`: the table whose state a refusal answered, which the
 * banner leaves once that state changes (a move made, the game started). */
export function tell(text, kind = "error", about = null) {
  state.notice = { text, kind, about, at: Date.now() };
  changed();
  clearTimeout(tell.timer);
  tell.timer = setTimeout(() => { state.notice = null; changed(); }, kind === "error" ? 8000 : 4000);
}

export async function api(path, body, method = body === undefined ? "GET" : "POST") {
  const response = await fetch(path, {
    method,
    headers: { "Content-Type": "application/json", "Accept-Language": language(),
      ...(state.token ? { Authorization: `Bearer ${state.token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = response.status === 204 ? {} : await response.json();
  if (!response.ok) throw new Error(data.message || response.statusText);
  return data;
}

/** Send a message; `then` runs with the server's answer to it (an ack or an error). While the
 * page is (re)connecting, the message waits and goes once the server has said welcome. */
export function send(message, then = null) {
  const id = `r${++state.requests}`;
  if (then) state.pending[id] = then;
  const text = JSON.stringify({ id, ...message });
  if (state.connected && state.socket?.readyState === WebSocket.OPEN) {
    state.socket.send(text);
    state.socket.unanswered.add(id);
  } else {
    state.outbox.push(text);
  }
}

/** The board of a game, `games/<name>.js` and its `games/<name>.css`: a new game adds files. */
export async function board(game) {
  if (!state.boards[game]) {
    const sheet = document.createElement("link");
    sheet.rel = "stylesheet";
    sheet.href = `/games/${game}.css`;
    document.head.append(sheet);
    state.boards[game] = (await import(`./games/${game}.js`)).default;
    changed();
  }
  return state.boards[game];
}

export async function start() {
  await loadTexts(chosenLanguage());
  state.games = await api("/api/games");
  await Promise.all(state.games.map((spec) => board(spec.name)));
  window.addEventListener("hashchange", () => {
    const table = currentTable();
    // the server has a seated person follow their seat, anyone else watch
    if (table && !state.views[table]) send({ type: "watch", table });
    // an invitation opened in a page already signed in (else welcome accepts it)
    if (route()?.kind === "join" && state.connected) accept(route().value);
    changed();
  });
  if (state.token) connect();
  changed();
}
function chosenLanguage() {
  const chosen = localStorage.getItem("lang") || (navigator.language || "en").slice(0, 2);
  return ["en", "fr"].includes(chosen) ? chosen : "en";
}

export async function switchLanguage() {
  localStorage.setItem("lang", language() === "en" ? "fr" : "en");
  await loadTexts(chosenLanguage());
  // chat stays as it was said, moves are told again; notices and summaries come again from the server
  state.logs.room = state.logs.room.filter((line) => line.kind === "chat");
  for (const room of Object.keys(state.logs.tournament)) {
    state.logs.tournament[room] = state.logs.tournament[room].filter((line) => line.kind === "chat");
  }
  for (const table of Object.keys(state.logs.table)) {
    state.logs.table[table] = state.logs.table[table].filter((line) => line.kind !== "notice")
      .map((line) => (line.words ? { ...line, text: say(line.words) } : line));
    keepLog(table);
  }
  state.summaries = {};
  if (state.socket) reconnect();  // the server speaks the new language after hello
  changed();
}

export function signedIn(session) {
  state.token = session.token;
  state.user = session.user;
  state.guest = session.guest;
  localStorage.setItem("token", session.token);
  localStorage.setItem("user", session.user);
  state.guest = session.guest;
  localStorage.setItem("guest", session.guest ? "yes" : "no");
  connect();
}

/** Sign out: the server closes this session first, so that the token is no good to anyone
 * who copied it; then the page forgets it. */
export async function signOut() {
  try {
    await api("/api/logout", {});
  } catch (error) {
    tell(error.message);
  }
  forgetSession();
}

/** Forget the session here only: the server has ended it, or refused it. */
export function forgetSession() {
  localStorage.removeItem("token");
  Object.assign(state, { token: null, user: null, connected: false, views: {}, tables: {}, roomInfo: null,
    outbox: [], roles: [] });
  state.socket?.close();
  state.socket = null;
  location.hash = "";
  changed();
}

/** A new socket at once; the old one only delivers the answers it still owes, then closes. */
function reconnect() {
  const old = state.socket;
  connect();
  if (!old.unanswered.size) old.close();
  else setTimeout(() => old.close(), 10_000);
}

function connect() {
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  state.socket = socket;
  socket.onopen = () => socket.send(JSON.stringify({ type: "hello", version: 1, token: state.token,
    language: language() }));
  socket.unanswered = new Set();  // ids of the requests sent on this socket, not yet answered
  socket.onmessage = (event) => {
    const frame = JSON.parse(event.data);
    // the server is stopping and closes the socket next: connect again at once (see onclose)
    if (frame.type === "reconnect") socket.told = true;
    const answer = frame.id && socket.unanswered.delete(frame.id);
    if (socket === state.socket) receive(frame);
    else if (answer) {
      receive(frame);
      if (!socket.unanswered.size) socket.close();
    }
  };
  socket.onclose = () => {
    if (state.socket !== socket) return;  // replaced by a new socket already
    state.connected = false;
    // told to reconnect, at once, spread over half a second so that a node's clients do not
    // all come back together; else a second later, again and again until a server answers
    if (state.token) setTimeout(connect, socket.told ? Math.random() * 500 : 1000);
    changed();
  };
}

export function currentTable() {
  const match = location.hash.match(/^#table=(\d+)$/);
  return match ? Number(match[1]) : null;
}

/** The page the address names besides a table: `{ kind, value }` for `#player=NAME`,
 * `#leaderboard=GAME`, `#replay=TABLE`, `#join=TABLE` (an invitation), `#reset=KEY` (a link
 * that sets a password), `#moderation` (the moderators' page) and `#messages` or
 * `#messages=NAME` (the messages panel, a conversation), else null. */
export function route() {
  if (location.hash === "#moderation") return { kind: "moderation", value: null };
  if (location.hash === "#messages") return { kind: "messages", value: null };
  if (location.hash === "#tournaments") return { kind: "tournaments", value: null };
  const match = location.hash.match(/^#(player|leaderboard|replay|join|reset|messages|tournament)=(.+)$/);
  if (!match) return null;
  const value = decodeURIComponent(match[2]);
  return { kind: match[1], value: ["replay", "join", "tournament"].includes(match[1]) ? Number(value) : value };
}

/** An invitation (`#join=TABLE`), once signed in: a free seat at an open table, or else the
 * table to watch, with a word on why. */
async function accept(table) {
  try {
    const info = await api(`/api/tables/${table}`);
    const free = info.status === "open" && info.seats.some((seat) => seat.kind === "empty");
    const mine = info.seats.some((seat) => seat.kind === "human" && seat.name === state.user);
    if (free && !mine) send({ type: "join", table });
    else if (!mine) tell(t("web.invite_no_seat", { table }), "info");
    location.hash = `table=${table}`;
  } catch (error) {
    tell(error.message);
    location.hash = "";
  }
}

export function openTable(id) {
  location.hash = `table=${id}`;
}

/** The tables where this person sits and the game waits for them. */
export function myTurns() {
  // a seat a bot plays for its absent person (they left) is not theirs to play now
  return Object.values(state.views).filter((frame) =>
    frame.seat !== null && frame.to_act === frame.seat && !frame.result
    && !state.tables[frame.table]?.seats[frame.seat]?.replaced).map((frame) => frame.table);
}

function receive(frame) {
  const answer = frame.id && state.pending[frame.id];
  if (answer) delete state.pending[frame.id];
  switch (frame.type) {
    case "welcome":
      state.connected = true;
      state.notice = null;
      state.rooms = frame.rooms;
      send({ type: "enter", room: state.room });
      if (route()?.kind === "tournament") send({ type: "tournament", tournament: route().value });
      for (const text of state.outbox.splice(0)) {
        state.socket.send(text);
        state.socket.unanswered.add(JSON.parse(text).id);
      }
      if (currentTable() && !state.views[currentTable()]) send({ type: "watch", table: currentTable() });
      if (route()?.kind === "join") accept(route().value);
      api("/api/moderation/me").then((mine) => { state.roles = mine.roles; changed(); }, () => {});
      break;
    case "error":
      if (["bad_token", "hello_first", "signed_out", "banned"].includes(frame.code)) forgetSession();
      if (frame.code === "draining") break;  // a server that is stopping: the next one answers
      tell(frame.message, "error", currentTable());
      break;
    case "unsay":
      unsay(frame);
      break;
    case "room":
      state.roomInfo = frame;
      for (const table of frame.tables) state.tables[table.table] = table;
      break;
    case "table":
      tableNews(frame);
      break;
    case "view":
      viewNews(frame);
      break;
    case "chat": case "notice": case "people":
      if (frame.type === "notice" && frame.rematch) state.rematches[frame.table] = frame.rematch;
      // a word for this person alone (a moderator's act, a report handled) shows at the top too
      if (frame.type === "notice" && !frame.table && !frame.room && frame.key !== "server.help") tell(frame.text, "info");
      note(logKey(frame), frame.type === "chat"
        ? { kind: "chat", sender: frame.sender, text: frame.text, line: frame.line }
        : { kind: "notice", text: frame.type === "people" ? frame.text || frame.people.join(", ") : frame.text }, frame.history);
      break;
  }
  frameHandlers[frame.type]?.(frame);
  if (answer) answer(frame);
  changed();
}

function tableNews(frame) {
  if (frame.status !== state.tables[frame.table]?.status) outdated(frame.table);
  if (frame.status === "closed") {
    delete state.tables[frame.table];
  } else {
    state.tables[frame.table] = frame;
  }
  const room = state.roomInfo;
  if (room && frame.room === room.room) {
    const others = room.tables.filter((table) => table.table !== frame.table);
    room.tables = frame.status === "closed" ? others : [...others, frame].sort((a, b) => a.table - b.table);
  }
}

/** A refusal about this table answered a state that has changed: it is no longer true. */
function outdated(table) {
  if (state.notice?.about === table) state.notice = null;
}

/** How long a completed trick stays on the table, its winner marked, before it is gathered. */
const HOLD_TRICK_MS = 1500;

function viewNews(frame) {
  const previous = state.views[frame.table];
  if (!frame.full && previous) {
    frame.view = { ...previous.view, ...frame.view };
    for (const [key, items] of Object.entries(frame.append ?? {})) frame.view[key] = [...previous.view[key], ...items];
  }
  const info = state.tables[frame.table];
  const module = info && state.boards[info.game];
  if (previous && frame.seq > previous.seq) outdated(frame.table);
  if (previous && module && frame.seq > previous.seq) {
    const ctx = context(info);
    // a view after a gap (back at the table, reconnected): what follows happened meanwhile
    if (frame.full) note(frame.table, { kind: "notice", text: t("web.meanwhile") });
    // kept as keys too (`words`), so that a change of language tells them again: the seat
    // names among them, hence a context made while recording (`ctx` has them in words)
    for (const words of recorded(() => module.describe(previous.view, frame.view, context(info)))) {
      note(frame.table, { kind: "move", words, text: say(words) });
    }
    const trick = module.lastTrick?.(frame.view);
    if (trick && JSON.stringify(trick) !== JSON.stringify(module.lastTrick(previous.view))) {
      state.held[frame.table] = { trick, until: Date.now() + HOLD_TRICK_MS };
    }
    const summary = module.summary?.(previous.view, frame.view, ctx);
    if (summary) state.summaries[frame.table] = summary;
  }
  const wasMyTurn = previous && previous.to_act === previous.seat;
  if (frame.seat !== null && frame.to_act === frame.seat && !wasMyTurn) attention();
  state.views[frame.table] = frame;
}

/** What a board module needs to put a position into words. */
export function context(info) {
  return { names: seatNames(info) };
}

export function seatNames(info) {
  return info.seats.map((seat, index) => seat.name ?? t("web.seat", { number: index + 1 }));
}

let lineKeys = 0;

/**
 * A table's log lasts as long as the browser tab: a reload finds it again. The moves in words
 * come from the page itself (the server keeps only chat and notices), so without this a reload
 * would lose them.
 */
export function tableLog(table) {
  if (!state.logs.table[table]) {
    const kept = JSON.parse(sessionStorage.getItem(`log:${table}`) ?? "[]");
    state.logs.table[table] = kept.map((line) => ({ ...line, key: ++lineKeys }));
  }
  return state.logs.table[table];
}

/** How often each line was resent in the latest burst of resent lines, per log: a line said
 * twice, and resent twice, is shown twice. A burst ends with a new line, or after a second. */
const recalled = new Map();
const BURST_MS = 1000;

/** The log a frame goes to: its table's (a number), its tournament's chat (its room,
 * `tournament-N`), else the room's (null). */
function logKey(frame) {
  return frame.table || (frame.room?.startsWith("tournament-") ? frame.room : null);
}

function linesOf(log) {
  if (!log) return state.logs.room;
  if (typeof log === "string") return (state.logs.tournament[log] ??= []);
  return tableLog(log);
}

/** The chat of a tournament, as far as this page heard it. */
export function tournamentLog(id) {
  return linesOf(`tournament-${id}`);
}

/** Add a line to a log (see `logKey`); a line the server resends after a hello
 * (`history`) is added only if the log does not show it already, however far back. */
function note(where, line, history = false) {
  const lines = linesOf(where);
  const log = where ?? "room";
  if (!history) {
    recalled.delete(log);
  } else {
    const same = (other) => other.kind === line.kind && other.sender === line.sender && other.text === line.text;
    const burst = recalled.get(log);
    const seen = burst && Date.now() - burst.at < BURST_MS ? burst.seen : new Map();
    recalled.set(log, { at: Date.now(), seen });
    const signature = JSON.stringify([line.kind, line.sender, line.text]);
    const times = (seen.get(signature) ?? 0) + 1;
    seen.set(signature, times);
    if (lines.filter(same).length >= times) return;
  }
  lines.push({ ...line, key: ++lineKeys });
  if (lines.length > 500) lines.splice(0, lines.length - 500);
  if (typeof where === "number") keepLog(where);
}

/** A moderator removed a chat line: it goes from the log it was in. */
function unsay(frame) {
  const lines = linesOf(logKey(frame));
  const index = lines.findIndex((line) => line.line === frame.line);
  if (index >= 0) lines.splice(index, 1);
  if (frame.table) keepLog(frame.table);
}

function keepLog(table) {
  const lines = state.logs.table[table];
  sessionStorage.setItem(`log:${table}`, JSON.stringify(lines.map(({ key, ...kept }) => kept)));
}

/** It is this person's turn: a sound if they asked for one (the tab title follows the state). */
function attention() {
  if (!state.sound) return;
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.frequency.value = 660;
    volume.gain.setValueAtTime(0.08, audio.currentTime);
    volume.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.35);
    tone.connect(volume).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.35);
  } catch { /* a browser that allows no sound before a click plays none */ }
}

export function toggleSound() {
  state.sound = !state.sound;
  localStorage.setItem("sound", state.sound ? "on" : "off");
  changed();
}
