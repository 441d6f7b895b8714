// The lobby: rooms, their tables (those waiting for this person marked), a new table with each
// game's own options as controls, the people here and the room's chat.
import { html, useState } from "./ui.js";
import { has, t, tn } from "./i18n.js";
import { changed, myTurns, openTable, send, state } from "./store.js";
import { ChatPanel } from "./chat.js";
import { Presence } from "./community.js";
import { UpcomingTournaments } from "./tournaments.js";
import { Friends } from "./messages.js";
import { DAYS_CLOCK, GamesOverDays, duration } from "./days.js";

export function Lobby() {
  const info = state.roomInfo;
  const tables = info ? info.tables : [];
  const finished = tables.filter((table) => table.status === "finished");
  const current = tables.filter((table) => table.status !== "finished");
  const mine = Object.values(state.tables).filter((table) => table.status !== "finished"
    && table.seats.some((seat) => seat.kind === "human" && seat.name === state.user));
  return html`
    <h1 class="visually-hidden">${t("web.lobby")}</h1>
    <div class="columns">
      <div>
        <${GamesOverDays} />
        ${mine.length ? html`<section class="panel" id="my-tables">
          <h2 class="small">${t("web.my_tables")}</h2>
          <ul class="tables">${mine.map((table) => html`<${TableLine} key=${table.table} table=${table} />`)}</ul>
        </section>` : null}
        <${PlayNow} />
        <section class="panel">
          <nav class="row" aria-label=${t("web.rooms")}>
            <strong>${t("web.rooms")}</strong>
            ${state.rooms.map((room) => html`<button key=${room} class=${room === state.room ? "primary" : ""}
              aria-current=${room === state.room ? "true" : null} onClick=${() => enter(room)}>${roomName(room)}</button>`)}
          </nav>
          <h2 class="small">${t("web.tables")}</h2>
          ${current.length ? html`<ul class="tables">${current.map((table) => html`<${TableLine} key=${table.table} table=${table} />`)}</ul>`
            : html`<p>${t("web.no_tables")}</p>`}
          ${finished.length ? html`<details class="finished-tables" id="finished-tables">
            <summary>${tn("web.finished_tables", finished.length)}</summary>
            <ul class="tables">${finished.map((table) => html`<${TableLine} key=${table.table} table=${table} />`)}</ul>
          </details>` : null}
        </section>
        <${NewTable} />
      </div>
      <div>
        <section class="panel"><strong>${t("web.people")}</strong> ${info ? info.people.join(", ") : ""}</section>
        <${Friends} />
        <${UpcomingTournaments} />
        <${Presence} />
        <${ChatPanel} place=${{ room: state.room }} lines=${state.logs.room} title=${t("web.chat")} />
      </div>
    </div>`;
}

function roomName(room) {
  return has(`${room}.name`) ? t(`${room}.name`) : t("web.room_main");
}

function enter(room) {
  state.room = room;
  localStorage.setItem("room", room);
  state.logs.room = [];
  send({ type: "enter", room });
  changed();
}

function TableLine({ table }) {
  const waiting = myTurns().includes(table.table);
  const seats = table.seats.map((seat) => seat.name ?? t("web.empty_seat")).join(", ");
  const seated = table.seats.some((seat) => seat.kind === "human" && seat.name === state.user);
  const free = !seated && table.status === "open" && table.seats.some((seat) => seat.kind === "empty");
  return html`
    <li class=${`row${waiting ? " waiting" : ""}`} data-table=${table.table}>
      <strong>#${table.table} ${t(`${table.game}.name`)}</strong>
      <span>${tn("web.players_count", table.players)} · ${t(`web.status_${table.status}`)} · ${seats}</span>
      ${table.rated ? null : html`<span class="chip">${t("web.unrated")}</span>`}
      ${waiting ? html`<span class="badge">${t("web.your_turn")}</span>` : null}
      ${free ? html`<button class="primary" onClick=${() => { send({ type: "join", table: table.table });
        location.hash = `table=${table.table}`; }}>${t("web.join")}</button>` : null}
      <button onClick=${() => openTable(table.table)}>${t("web.open_table")}</button>
    </li>`;
}

/** A game in one click: a table of this person and bots of the chosen level, started at once;
 * or, with friends, a table whose other seats wait for them, its invitation link ready to copy. */
function PlayNow() {
  const [level, setLevel] = useState(localStorage.getItem("level") ?? "easy");
  const play = (game, friends) => send({ type: "play_now", room: state.room, game, level, friends }, (answer) => {
    if (answer.type !== "ack" || !answer.table) return;
    if (friends) state.inviting = answer.table;
    location.hash = `table=${answer.table}`;
  });
  const games = (friends) => state.games.map((spec) => html`<button key=${spec.name}
    class=${friends ? "" : "primary"} data-play=${friends ? null : spec.name} data-friends=${friends ? spec.name : null}
    onClick=${() => play(spec.name, friends)}>${t(`${spec.name}.name`)}</button>`);
  return html`<section class="panel play-now" aria-labelledby="play-now-heading">
    <h2 class="small" id="play-now-heading">${t("web.play_now")}</h2>
    <div class="row" role="group" aria-labelledby="play-now-heading">
      ${games(false)}
      <label>${t("web.bot_level")} <select id="play-level" value=${level}
        onChange=${(event) => { setLevel(event.target.value); localStorage.setItem("level", event.target.value); }}>
        ${state.games[0].bots.map((name) => html`<option key=${name} value=${name}>${t(`web.level.${name}`)}</option>`)}
      </select></label>
    </div>
    <p class="hint">${t("web.play_now_hint")}</p>
    <div class="row" role="group" aria-labelledby="play-friends-heading" id="play-friends">
      <strong id="play-friends-heading">${t("web.play_with_friends")}</strong>
      ${games(true)}
    </div>
    <p class="hint">${t("web.play_with_friends_hint")}</p>
  </section>`;
}

const CLOCKS = [0, 15, 30, 60, 120];
const CLOCKS_OVER_DAYS = [3600, 12 * 3600, 86400, 3 * 86400];

/** The form keeps what the person chose while frames arrive: it is the component's own state. */
function NewTable() {
  const [game, setGame] = useState(state.games[0].name);
  const spec = state.games.find((each) => each.name === game);
  const [players, setPlayers] = useState(Math.min(4, spec.max_players));
  const [clock, setClock] = useState(0);
  const [timeout, setRule] = useState("bot");
  const [options, setOptions] = useState({});
  const [rated, setRated] = useState(true);
  const choose = (name) => { setGame(name); setOptions({});
    const next = state.games.find((each) => each.name === name);
    setPlayers((count) => Math.max(next.min_players, Math.min(next.max_players, count))); };
  const create = (event) => {
    event.preventDefault();
    send({ type: "create", room: state.room, game, players, options, clock: clock || null, timeout: clock >= DAYS_CLOCK ? timeout : "bot", rated }, (answer) => {
      if (answer.type === "ack" && answer.table) location.hash = `table=${answer.table}`;
    });
  };
  const counts = [];
  for (let count = spec.min_players; count <= spec.max_players; count++) counts.push(count);
  const control = (option) => html`<${OptionControl} key=${`${game}.${option.name}`} game=${game}
    option=${option} players=${players} value=${options[option.name]}
    onChange=${(value) => setOptions((now) => { const next = { ...now };
      if (value === undefined) delete next[option.name]; else next[option.name] = value; return next; })} />`;
  return html`
    <form class="panel" id="new-table" onSubmit=${create}>
      <h2 class="small">${t("web.new_table")}</h2>
      <div class="row">
        <label>${t("web.game")} <select id="new-game" value=${game} onChange=${(event) => choose(event.target.value)}>
          ${state.games.map((each) => html`<option value=${each.name}>${t(`${each.name}.name`)}</option>`)}</select></label>
        <label>${t("web.players")} <select id="new-players" value=${players} onChange=${(event) => setPlayers(Number(event.target.value))}>
          ${counts.map((count) => html`<option value=${count}>${count}</option>`)}</select></label>
        <label>${t("web.clock")} <select id="new-clock" value=${clock} onChange=${(event) => setClock(Number(event.target.value))}>
          <optgroup label=${t("web.clock_live")}>
            ${CLOCKS.map((seconds) => html`<option value=${seconds}>${seconds ? tn("web.seconds", seconds) : t("web.clock_none")}</option>`)}
          </optgroup>
          <optgroup label=${t("web.clock_over_days")}>
            ${CLOCKS_OVER_DAYS.map((seconds) => html`<option value=${seconds}>${duration(seconds)}</option>`)}
          </optgroup></select></label>
        ${clock >= DAYS_CLOCK ? html`<label>${t("web.timeout_rule")} <select id="new-timeout" value=${timeout}
          onChange=${(event) => setRule(event.target.value)}>
          ${["bot", "lose"].map((rule) => html`<option value=${rule}>${t(`web.timeout_rule_${rule}`)}</option>`)}</select></label>` : null}
      </div>
      ${clock >= DAYS_CLOCK ? html`<p class="hint" id="over-days-hint">${t("web.over_days_hint")}</p>` : null}
      <p class="blurb" id="new-game-blurb">${t(`${game}.board.blurb`)}</p>
      <fieldset class="options"><legend>${t("web.options")}</legend>
        ${spec.options.filter((option) => !option.shrinks).map(control)}
        ${spec.options.some((option) => option.shrinks) ? html`<details class="shrinking" id="shrinking-options">
          <summary>${t("web.shrinking_options")}</summary>
          ${spec.options.filter((option) => option.shrinks).map(control)}</details>` : null}
      </fieldset>
      <label class="option check" for="new-rated"><input type="checkbox" id="new-rated" checked=${rated}
        onChange=${(event) => setRated(event.target.checked)} /> <span>${t("web.rated_option")}</span></label>
      <button class="primary" type="submit" id="create">${t("web.create")}</button>
    </form>`;
}

/** One option of a game, drawn after its spec's kind; `undefined` leaves the game's default. */
export function OptionControl({ game, option, players, value, onChange }) {
  const id = `option-${option.name}`;
  const label = html`<span>${t(option.label)}</span>`;
  const fallback = option.default === null || option.default === undefined ? "" : String(option.default);
  switch (option.kind) {
    case "bool": {
      const checked = value === undefined ? Boolean(option.default) : value === "true";
      return html`<label class="option check" for=${id}><input type="checkbox" id=${id} data-option=${option.name}
        checked=${checked} onChange=${(event) => onChange(event.target.checked === Boolean(option.default)
          ? undefined : String(event.target.checked))} /> ${label}</label>`;
    }
    case "seat": {
      const seats = [];
      for (let seat = 1; seat <= players; seat++) seats.push(seat);
      return html`<label class="option" for=${id}>${label} <select id=${id} data-option=${option.name}
        value=${value ?? ""} onChange=${(event) => onChange(event.target.value || undefined)}>
        <option value="">${t("web.option_random")}</option>
        ${seats.map((seat) => html`<option value=${`P${seat}`}>${t("web.seat", { number: seat })}</option>`)}
      </select></label>`;
    }
    case "choice":
      return html`<label class="option" for=${id}>${label} <select id=${id} data-option=${option.name}
        value=${value ?? fallback} onChange=${(event) => onChange(event.target.value === fallback ? undefined : event.target.value)}>
        ${option.choices.map((choice) => html`<option value=${choice}>${choiceName(game, option, choice)}</option>`)}
      </select></label>`;
    case "int":
      return html`<label class="option" for=${id}>${label} <input type="number" id=${id} data-option=${option.name}
        min=${option.min ?? null} max=${option.max ?? null} value=${value ?? ""} placeholder=${fallback || t("web.option_none")}
        onInput=${(event) => onChange(event.target.value === "" ? undefined : event.target.value)} /></label>`;
    default:
      return html`<label class="option" for=${id}>${label} <input id=${id} data-option=${option.name} value=${value ?? ""}
        list=${option.choices?.length ? `${id}-forms` : null} placeholder=${fallback && choiceName(game, option, fallback)}
        onInput=${(event) => onChange(event.target.value.trim() || undefined)} />
        ${option.choices?.length ? html`<datalist id=${`${id}-forms`}>${option.choices.map((choice) =>
          html`<option value=${choice}>${choiceName(game, option, choice)}</option>`)}</datalist>` : null}</label>`;
  }
}

function choiceName(game, option, choice) {
  const key = `${game}.choice.${option.name}.${choice}`;
  return has(key) ? t(key) : choice;
}
