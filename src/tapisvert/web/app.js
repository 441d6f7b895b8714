// The tapisvert web app: sign-in, lobby, tables. Plain ES modules, no build step.
// Every text comes from the server's catalogues; names and chat are always text, never HTML.
import { renderBoard, scoreSheet } from "./games/boards.js";

const state = {
  lang: localStorage.getItem("lang") || (navigator.language || "en").slice(0, 2),
  texts: {},
  token: localStorage.getItem("token"),
  user: localStorage.getItem("user"),
  socket: null,
  room: localStorage.getItem("room") || "main",
  rooms: [],
  roomInfo: null,
  tables: {},      // table id -> table info
  views: {},       // table id -> latest view frame (merged)
  logs: { room: [], table: {} },
  games: [],
  requests: 0,
  replay: null,
};
if (!["en", "fr"].includes(state.lang)) state.lang = "en";

// -- helpers ------------------------------------------------------------------------------

export function t(key, args = {}) {
  const template = state.texts[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (_, name) => String(args[name] ?? ""));
}

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "class") element.className = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

function show(message) {
  const box = document.getElementById("notice");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(show.timer);
  show.timer = setTimeout(() => { box.hidden = true; }, 5000);
}

async function api(path, body) {
  const response = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "Content-Type": "application/json", "Accept-Language": state.lang,
      ...(state.token ? { Authorization: `Bearer ${state.token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) throw new Error(data.message || response.statusText);
  return data;
}

function send(message) {
  if (state.socket?.readyState === WebSocket.OPEN) {
    state.socket.send(JSON.stringify({ id: `r${++state.requests}`, ...message }));
  }
}

function currentTable() {
  const match = location.hash.match(/^#table=(\d+)$/);
  return match ? Number(match[1]) : null;
}

// -- start --------------------------------------------------------------------------------

async function loadTexts() {
  state.texts = await api(`/api/catalogue/${state.lang}`);
  document.documentElement.lang = state.lang;
  document.title = t("web.title");
}

async function start() {
  await loadTexts();
  state.games = await api("/api/games");
  window.addEventListener("hashchange", render);
  if (state.token) connect(); else render();
}

function signedIn(session) {
  state.token = session.token;
  state.user = session.user;
  localStorage.setItem("token", session.token);
  localStorage.setItem("user", session.user);
  connect();
}

function signOut() {
  localStorage.removeItem("token");
  state.token = null;
  state.socket?.close();
  state.socket = null;
  location.hash = "";
  render();
}

function connect() {
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  state.socket = socket;
  socket.onopen = () => socket.send(JSON.stringify({ type: "hello", version: 1, token: state.token, language: state.lang }));
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = () => {
    if (state.socket === socket && state.token) setTimeout(connect, 1000);
  };
}

function receive(frame) {
  switch (frame.type) {
    case "welcome":
      state.rooms = frame.rooms;
      send({ type: "enter", room: state.room });
      if (currentTable() && !state.tables[currentTable()]) send({ type: "watch", table: currentTable() });
      break;
    case "error":
      if (frame.code === "bad_token" || frame.code === "hello_first") signOut();
      show(frame.message);
      break;
    case "room":
      state.roomInfo = frame;
      for (const table of frame.tables) state.tables[table.table] = table;
      break;
    case "table":
      state.tables[frame.table] = frame;
      if (state.roomInfo && frame.room === state.roomInfo.room) {
        const others = state.roomInfo.tables.filter((table) => table.table !== frame.table);
        state.roomInfo.tables = [...others, frame].sort((a, b) => a.table - b.table);
      }
      break;
    case "view": {
      const previous = state.views[frame.table];
      if (!frame.full && previous) frame.view = { ...previous.view, ...frame.view };
      state.views[frame.table] = frame;
      break;
    }
    case "ack":
      if (frame.table && state.pendingOpen === frame.id) { location.hash = `table=${frame.table}`; }
      return;
    case "chat": case "notice": case "people":
      log(frame);
      break;
  }
  render();
}

function log(frame) {
  const line = frame.type === "chat"
    ? h("div", {}, h("span", { class: "who" }, `${frame.sender}: `), frame.text)
    : h("div", { class: "system" }, frame.type === "people" ? frame.people.join(", ") : frame.text);
  if (frame.table) (state.logs.table[frame.table] ??= []).push(line);
  else state.logs.room.push(line);
}

// -- screens ------------------------------------------------------------------------------

function render() {
  renderBar();
  const main = document.getElementById("main");
  const focused = document.activeElement?.id;
  main.replaceChildren(
    !state.token ? signInScreen() : currentTable() ? tableScreen(currentTable()) : lobbyScreen(),
  );
  main.querySelectorAll(".log").forEach((box) => { box.scrollTop = box.scrollHeight; });
  if (focused) document.getElementById(focused)?.focus();
}

function renderBar() {
  const bar = document.getElementById("bar");
  bar.replaceChildren(
    h("h1", {}, "tapisvert"),
    state.token ? h("span", {}, state.user) : null,
    h("button", { id: "language", onclick: switchLanguage }, t("web.language")),
    state.token ? h("button", { onclick: signOut }, t("web.sign_out")) : null,
  );
}

async function switchLanguage() {
  state.lang = state.lang === "en" ? "fr" : "en";
  localStorage.setItem("lang", state.lang);
  await loadTexts();
  if (state.socket) { state.socket.close(); }
  else render();
}

function signInScreen() {
  const name = h("input", { id: "name", autocomplete: "username", maxlength: 32 });
  const password = h("input", { id: "password", type: "password", autocomplete: "current-password" });
  const attempt = (path, withPassword) => async (event) => {
    event.preventDefault();
    try {
      signedIn(await api(path, { name: name.value.trim(), password: withPassword ? password.value : "" }));
    } catch (error) { show(error.message); }
  };
  return h("div", { class: "panel" },
    h("h2", {}, t("web.tagline")),
    h("form", { class: "row", onsubmit: attempt("/api/guest", false) },
      h("label", {}, t("web.name"), " ", name),
      h("button", { class: "primary", type: "submit", id: "guest" }, t("web.guest"))),
    h("div", { class: "row" },
      h("label", {}, t("web.password"), " ", password),
      h("button", { id: "login", onclick: attempt("/api/login", true) }, t("web.login")),
      h("button", { id: "register", onclick: attempt("/api/register", true) }, t("web.register"))),
    rulesList());
}

function rulesList() {
  return h("details", {}, h("summary", {}, t("web.rules_title")),
    ...["wizard", "luz", "abluxxen", "fzzzt"].map((game) =>
      h("p", {}, h("strong", {}, t(`${game}.name`)), " — ", t(`web.rules.${game}`))));
}

function lobbyScreen() {
  const info = state.roomInfo;
  const tables = info ? info.tables : [];
  return h("div", { class: "columns" },
    h("div", {},
      h("div", { class: "panel" },
        h("div", { class: "row" }, h("strong", {}, t("web.rooms")),
          ...state.rooms.map((room) => h("button", {
            class: room === state.room ? "primary" : "",
            onclick: () => { state.room = room; localStorage.setItem("room", room); state.logs.room = [];
              send({ type: "enter", room }); } }, room))),
        h("h3", {}, t("web.tables")),
        tables.length ? h("ul", { class: "tables" }, ...tables.map(tableLine)) : h("p", {}, t("web.no_tables"))),
      newTableForm(),
      h("div", { class: "panel" }, rulesList())),
    h("div", {},
      h("div", { class: "panel" }, h("strong", {}, t("web.people")), " ",
        info ? info.people.join(", ") : ""),
      chatPanel({ room: state.room }, state.logs.room)));
}

function tableLine(table) {
  const seats = table.seats.map((seat) => seat.name ?? t("web.empty_seat")).join(", ");
  return h("li", { class: "row", "data-table": table.table },
    h("strong", {}, `#${table.table} ${t(`${table.game}.name`)}`),
    h("span", {}, `${table.players} · ${t(`web.status_${table.status}`)} · ${seats}`),
    table.status === "open" && table.seats.some((seat) => seat.kind === "empty")
      ? h("button", { class: "primary", onclick: () => { send({ type: "join", table: table.table });
          location.hash = `table=${table.table}`; } }, t("web.join")) : null,
    h("button", { onclick: () => { openTable(table.table); } }, t("web.watch")));
}

function openTable(id) {
  const seated = state.views[id]?.seat ?? null;
  if (seated === null) send({ type: "watch", table: id });
  location.hash = `table=${id}`;
}

function newTableForm() {
  const game = h("select", { id: "new-game" }, ...state.games.map((spec) =>
    h("option", { value: spec.name }, t(`${spec.name}.name`))));
  const players = h("input", { id: "new-players", type: "number", min: 2, max: 6, value: 4 });
  const clock = h("input", { id: "new-clock", type: "number", min: 0, max: 3600, value: 0 });
  const options = h("input", { id: "new-options", placeholder: "rounds=first5", size: 24 });
  const create = (event) => {
    event.preventDefault();
    const chosen = {};
    for (const pair of options.value.split(/[\s,;]+/).filter(Boolean)) {
      const [name, value] = pair.split("=");
      chosen[name] = value ?? "true";
    }
    const id = `r${++state.requests}`;
    state.pendingOpen = id;
    state.socket.send(JSON.stringify({ id, type: "create", room: state.room, game: game.value,
      players: Number(players.value), options: chosen, clock: Number(clock.value) || null }));
  };
  return h("form", { class: "panel", onsubmit: create },
    h("h3", {}, t("web.new_table")),
    h("div", { class: "row" },
      h("label", {}, t("web.game"), " ", game),
      h("label", {}, t("web.players"), " ", players),
      h("label", {}, t("web.clock"), " ", clock),
      h("label", {}, t("web.options"), " ", options),
      h("button", { class: "primary", type: "submit", id: "create" }, t("web.create"))));
}

function chatPanel(place, lines) {
  const input = h("input", { id: place.table ? "table-chat" : "room-chat", placeholder: t("web.chat_hint"),
    maxlength: 500, size: 30 });
  const post = (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    send({ type: "chat", text, ...place });
    input.value = "";
  };
  return h("div", { class: "panel" },
    h("strong", {}, t("web.chat")),
    h("div", { class: "log" }, ...lines),
    h("form", { class: "row", onsubmit: post }, input, h("button", { type: "submit" }, t("web.send"))));
}

function tableScreen(id) {
  const info = state.tables[id];
  const frame = state.views[id];
  if (!info) return h("div", { class: "panel" }, h("button", { onclick: () => { location.hash = ""; } }, t("web.back")));
  const mine = frame?.seat ?? null;
  const view = frame?.view;
  const act = (action) => send({ type: "act", table: id, seq: frame.seq, action });
  const controls = h("div", { class: "row" },
    h("button", { onclick: () => { location.hash = ""; } }, t("web.back")),
    info.status === "open" && !info.seats.some((seat) => seat.kind === "human" && seat.name === state.user)
      ? h("button", { class: "primary", onclick: () => send({ type: "join", table: id }) }, t("web.join")) : null,
    info.status === "open" ? botPicker(id) : null,
    info.status === "open" ? h("button", { class: "primary", id: "start", onclick: () => send({ type: "start", table: id }) }, t("web.start")) : null,
    info.status !== "finished" ? h("button", { onclick: () => { send({ type: "leave", table: id }); location.hash = ""; } }, t("web.leave")) : null,
    info.status === "finished" ? h("button", { id: "replay", onclick: () => openReplay(id) }, t("web.replay")) : null);
  const status = !frame ? t(`web.status_${info.status}`)
    : frame.result ? t("web.winner", { names: winners(info, frame.result) })
    : frame.to_act === mine && mine !== null ? t("web.your_turn")
    : t("web.waiting_for", { name: info.seats[frame.to_act]?.name ?? "" });
  return h("div", { class: "columns" },
    h("div", {},
      h("div", { class: "panel" },
        h("div", { class: "row" }, h("h2", {}, `#${id} ${t(`${info.game}.name`)}`),
          h("span", { id: "status" }, status),
          frame?.deadline ? h("span", {}, t("web.deadline", { seconds: Math.max(0, Math.round(frame.deadline - Date.now() / 1000)) })) : null),
        controls,
        seatsBar(info, frame)),
      view ? h("div", { class: "panel board", id: "board", "data-seq": frame.seq },
        renderBoard(info.game, view, mine, frame.legal, act, { t, h, names: seatNames(info), seq: frame.seq })) : null,
      view ? h("div", { class: "panel" }, h("strong", {}, t("web.score_sheet")), scoreSheet(info.game, view, seatNames(info), { t, h })) : null,
      state.replay?.table === id ? replayPanel() : null),
    h("div", {}, chatPanel({ table: id }, state.logs.table[id] ?? []),
      h("div", { class: "panel" }, h("strong", {}, t("web.rules_title")), h("p", {}, t(`web.rules.${info.game}`)))));
}

function seatNames(info) {
  return info.seats.map((seat, index) => seat.name ?? t("web.seat", { number: index + 1 }));
}

function winners(info, result) {
  const best = Math.max(...result);
  return seatNames(info).filter((_, index) => result[index] === best).join(", ");
}

function seatsBar(info, frame) {
  return h("div", { class: "seats" }, ...info.seats.map((seat, index) =>
    h("div", { class: `seat${frame && frame.to_act === index ? " turn" : ""}`, "data-seat": index },
      h("div", {}, h("strong", {}, seat.name ?? t("web.empty_seat")),
        frame?.seat === index ? ` (${t("web.you")})` : ""),
      seat.kind === "bot" ? h("span", { class: "label" }, `${seat.level}`) : null,
      seat.replaced ? h("span", { class: "away" }, t("web.away")) : null,
      seat.kind === "human" && !seat.present ? h("span", { class: "away" }, t("web.offline")) : null,
      frame?.view?.scores ? h("span", { class: "label" }, `${t("web.scores")}: ${frame.view.scores[index]}`) : null)));
}

function botPicker(id) {
  const level = h("select", { id: "bot-level" }, ...["random", "easy", "medium", "hard"].map((name) => h("option", { value: name }, name)));
  return h("span", { class: "row" }, level,
    h("button", { id: "add-bot", onclick: () => send({ type: "bot", table: id, level: level.value }) }, t("web.add_bot")));
}

async function openReplay(id) {
  try {
    state.replay = { table: id, steps: await api(`/api/tables/${id}/replay`), index: 0 };
    render();
  } catch (error) { show(error.message); }
}

function replayPanel() {
  const replay = state.replay;
  const step = replay.steps[replay.index];
  const info = state.tables[replay.table];
  const move = (delta) => { replay.index = Math.max(0, Math.min(replay.steps.length - 1, replay.index + delta)); render(); };
  return h("div", { class: "panel", id: "replay-panel" },
    h("div", { class: "row" }, h("strong", {}, t("web.replay")),
      h("span", {}, t("web.step", { number: replay.index + 1, count: replay.steps.length })),
      step.actor ? h("span", {}, `${step.actor}: ${step.action}`) : null,
      h("button", { onclick: () => move(-1) }, t("web.previous")),
      h("button", { id: "replay-next", onclick: () => move(1) }, t("web.next")),
      h("button", { onclick: () => { state.replay = null; render(); } }, t("web.close"))),
    renderBoard(info.game, step.view, null, [], () => {}, { t, h, names: seatNames(info) }));
}

start();
