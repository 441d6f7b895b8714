// A table: the seats around the felt with the person at the bottom, the game's board in the
// middle, the hand and the moves pinned below, the log of moves and chat beside. The game's own
// parts come from its board module (games/<name>.js); this file names no game.
import { html, useEffect, useRef, useState } from "./ui.js";
import { has, t, tn } from "./i18n.js";
import { api, changed, context, send, state, tableLog, tell } from "./store.js";
import { Backs } from "./cards.js";
import { ChatPanel } from "./chat.js";
import { Invitation, PlayerLink, RatingChange, SeatChip, accountName, ranking } from "./community.js";
import { InviteFriends } from "./messages.js";
import { ReviewPanel } from "./review.js";
import { Hint, HowToPlay } from "./guide.js";
import { DAYS_CLOCK, clockWords, duration } from "./days.js";

const LEVELS = ["random", "easy", "medium", "hard"];

export function TableScreen({ id }) {
  const info = state.tables[id];
  const frame = state.views[id];
  const [showLast, setShowLast] = useState(false);
  useHeldTrickTimer(id);
  if (!info) {
    return html`<section class="panel"><p>${t("web.table_unknown", { table: id })}</p>
      <a class="button" href="#">${t("web.back")}</a></section>`;
  }
  const module = state.boards[info.game];
  const own = ownSeat(info);  // before the start too, when no view has come yet
  const ctx = tableContext(info, frame);
  const replaying = state.replay?.table === id;
  return html`
    <div class="table-screen">
      <section class="panel table-head">
        <div class="row">
          <a class="button" href="#" id="back">${t("web.back")}</a>
          <h1>#${id} ${t(`${info.game}.name`)}</h1>
          <${HowToPlay} game=${info.game} seated=${own >= 0} focusHand=${focusHand} />
          <${Options} info=${info} />
        </div>
        <div class="row">
          <span id="status" role="status">${statusText(info, frame, ctx)}</span>
          ${frame?.deadline && !frame.result ? html`<${Countdown} deadline=${frame.deadline} />` : null}
          ${module.lastTrick && frame ? html`<button id="last-trick" aria-pressed=${String(showLast)}
            disabled=${!module.lastTrick(frame.view)} onClick=${() => setShowLast(!showLast)}>${t("web.last_trick")}</button>` : null}
          ${info.status !== "finished" && own >= 0 && !info.seats[own].replaced ? html`<button id="leave" onClick=${() => {
            if (info.status === "playing" && !confirm(t(info.rated && !state.guest ? "web.leave_rated_game" : "web.leave_game"))) return;
            send({ type: "leave", table: id });
            // a bot plays the seat from now on: not this person's turn, before the server's news of it
            if (info.status === "playing") info.seats[own] = { ...info.seats[own], replaced: true };
            location.hash = ""; }}>${t("web.leave")}</button>` : null}
          ${info.status === "playing" && info.seats[own]?.replaced ? html`<button class="primary" id="take-back"
            onClick=${() => send({ type: "join", table: id, seat: own })}>${t("web.take_back_seat")}</button>` : null}
        </div>
      </section>
      ${info.status === "open" ? html`<${Seating} info=${info} />` : null}
      ${frame?.result ? html`<${EndScreen} info=${info} frame=${frame} ctx=${ctx} />` : null}
      ${frame && !replaying ? html`<${Felt} info=${info} frame=${frame} module=${module} ctx=${ctx} showLast=${showLast} />` : null}
      ${replaying ? html`<${Replay} info=${info} module=${module} />` : null}
      <div class="columns below">
        <${ChatPanel} place=${{ table: id }} lines=${tableLog(id)} title=${t("web.table_log")} />
        ${frame ? html`<${ScoreSheet} info=${info} view=${frame.view} ctx=${ctx} />` : null}
      </div>
    </div>`;
}

/** This person's seat at the table (-1: none); a bot plays it while they are away. */
function ownSeat(info) {
  return info.seats.findIndex((seat) => seat.kind === "human" && seat.name === state.user);
}

/** Re-render when a held trick is due to be gathered. */
function useHeldTrickTimer(id) {
  const held = state.held[id];
  useEffect(() => {
    if (!held) return undefined;
    const timer = setTimeout(() => { delete state.held[id]; changed(); }, Math.max(0, held.until - Date.now()));
    return () => clearTimeout(timer);
  }, [held]);
}

/** What a board is given: the seats' names, this person's seat, their legal moves and a way
 * to make one; `reveal` (every seat's view) only in a replay. */
function tableContext(info, frame) {
  return { ...context(info), mine: frame?.seat ?? null, legal: frame?.legal ?? [],
    act: (action) => send({ type: "act", table: info.table, seq: frame.seq, action }),
    reveal: null, seq: frame?.seq ?? 0 };
}

function statusText(info, frame, ctx) {
  if (!frame) return t(`web.status_${info.status}`);
  if (frame.result) return t("web.winner", { names: frame.winners.map((seat) => ctx.names[seat]).join(", ") });
  if (frame.to_act === null) return t("web.status_playing");
  if (frame.to_act === ctx.mine) return t("web.your_turn");
  return t("web.waiting_for", { name: ctx.names[frame.to_act] });
}

function Options({ info }) {
  const spec = state.games.find((each) => each.name === info.game);
  const chosen = (spec?.options ?? []).filter((option) => info.options[option.name] !== undefined
    && info.options[option.name] !== option.default);
  return html`<span class="chips" id="table-options">
    <span class="chip">${tn("web.players_count", info.players)}</span>
    ${info.clock ? html`<span class="chip" id="table-clock">${clockWords(info.clock)}</span>` : null}
    ${info.clock >= DAYS_CLOCK ? html`<span class="chip" id="table-timeout">${t(`web.timeout_chip_${info.timeout}`)}</span>` : null}
    ${info.rated ? null : html`<span class="chip" id="unrated">${t("web.unrated")}</span>`}
    ${chosen.map((option) => html`<span class="chip" key=${option.name}>${t("web.labelled", { label: shortLabel(t(option.label)), value: optionValue(info, option) })}</span>`)}
  </span>`;
}

/** An option's label up to its explanation ("Hidden bids: they are shown…" → "Hidden bids",
 * "Rounds to play (or your own list…)" → "Rounds to play"). */
function shortLabel(label) {
  return label.split(/\s?:\s|\s\(/)[0];
}

function optionValue(info, option) {
  const value = info.options[option.name];
  if (value === true) return t("web.yes");
  if (value === false) return t("web.no");
  if (option.kind === "seat") return t("web.seat", { number: typeof value === "number" ? value + 1 : Number(value.slice(1)) });
  const key = `${info.game}.choice.${option.name}.${value}`;
  return has(key) ? t(key) : String(value);
}

function Countdown({ deadline }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, []);
  const left = Math.max(0, Math.ceil(deadline - now / 1000));
  return html`<span class=${`clock${left <= 10 ? " short" : ""}`} role="timer" aria-live="off">
    ${left <= 120 ? t("web.deadline", { seconds: left }) : t("web.time_left", { left: duration(left) })}</span>`;
}

/** Before the start: who sits where, a seat to take, a bot to put in an empty seat. */
function Seating({ info }) {
  const seated = info.seats.some((seat) => seat.kind === "human" && seat.name === state.user);
  const full = info.seats.every((seat) => seat.kind !== "empty");
  const [level, setLevel] = useState("easy");
  return html`<section class="panel seating">
    <h2 class="small">${t("web.seating")}</h2>
    <ol class="seat-list">
      ${info.seats.map((seat, index) => html`<li key=${index} class="row">
        <span>${t("web.seat", { number: index + 1 })}:</span>
        ${seat.kind === "empty" ? html`<em>${t("web.empty_seat")}</em>
            ${seated ? null : html`<button onClick=${() => send({ type: "join", table: info.table, seat: index })}>${t("web.sit_here")}</button>`}
            <button onClick=${() => send({ type: "bot", table: info.table, level, seat: index })}>${t("web.bot_here", { level: t(`web.level.${level}`) })}</button>`
          : html`<strong>${seat.name}</strong><${SeatChip} seat=${seat} />`}
      </li>`)}
    </ol>
    <div class="row">
      <label>${t("web.bot_level")} <select id="bot-level" value=${level} onChange=${(event) => setLevel(event.target.value)}>
        ${LEVELS.map((each) => html`<option value=${each}>${t(`web.level.${each}`)}</option>`)}</select></label>
      <button id="add-bot" onClick=${() => send({ type: "bot", table: info.table, level })} disabled=${full}>${t("web.add_bot")}</button>
      ${seated ? null : html`<button class="primary" onClick=${() => send({ type: "join", table: info.table })}>${t("web.join")}</button>`}
      <button class="primary" id="start" onClick=${() => send({ type: "start", table: info.table })}>${t("web.start")}</button>
    </div>
    ${full ? null : html`<${InviteBot} table=${info.table} />`}
    <p class="hint">${full ? t("web.start_hint") : t("web.seats_hint")}</p>
    ${full ? null : html`<${Invitation} table=${info.table} /><${InviteFriends} info=${info} />`}
  </section>`;
}

/** Someone's bot account, invited by name to the next empty seat while its program is connected. */
function InviteBot({ table }) {
  const [name, setName] = useState("");
  const submit = (event) => {
    event.preventDefault();
    send({ type: "invite", table, name: name.trim() }, (answer) => answer.type === "ack" && setName(""));
  };
  return html`<form class="row invite-bot" id="invite-bot" onSubmit=${submit}>
    <label>${t("web.invite_bot_label")} <input id="invite-bot-name" maxlength="32" value=${name}
      onInput=${(event) => setName(event.target.value)} /></label>
    <button type="submit" id="invite-bot-button" disabled=${!name.trim()}>${t("web.invite_bot")}</button>
    <span class="hint">${t("web.invite_bot_hint")}</span>
  </form>`;
}

/** The felt: the other seats across the top, the board, and this person's seat and hand below. */
function Felt({ info, frame, module, ctx, showLast }) {
  const view = frame.view;
  const count = info.seats.length;
  const bottom = ctx.mine ?? 0;
  const others = [];
  for (let step = 1; step < count; step++) others.push((bottom + step) % count);
  const summary = state.summaries?.[info.table];
  const trick = showLast ? module.lastTrick(view) : state.held[info.table]?.trick ?? null;
  return html`
    <section class="felt" aria-label=${t("web.table")}>
      <div class="others">
        ${others.map((index) => html`<${SeatPlate} key=${index} index=${index} info=${info} frame=${frame} module=${module} ctx=${ctx} />`)}
      </div>
      <div class="board" id="board" data-seq=${frame.seq}>
        ${summary ? html`<${Summary} table=${info.table} summary=${summary} />` : null}
        ${module.center(view, { ...ctx, shownTrick: trick, showingLast: showLast })}
      </div>
      <div class="hint-live" role="status">${ctx.mine !== null && frame.to_act === ctx.mine && !frame.result
        ? html`<${Hint} game=${info.game} kind=${module.decision?.(view, ctx)} table=${info.table} seq=${frame.seq} />`
        : null}</div>
      ${ctx.mine === null ? html`<div class="others bottom"><${SeatPlate} index=${bottom} info=${info} frame=${frame} module=${module} ctx=${ctx} /></div>` : null}
    </section>
    ${ctx.mine !== null ? html`<${Dock} info=${info} frame=${frame} module=${module} ctx=${ctx} />` : null}`;
}

/** One seat: name, level, markers, score, the game's details, the hand as backs, the clock;
 * in a replay (`past`), not whether its person is here now. */
function SeatPlate({ index, info, frame, module, ctx, own = false, past = false }) {
  const seat = info.seats[index];
  const details = module.seat(frame.view, index, ctx);
  const turn = frame.to_act === index;
  return html`<div class=${`seat${turn ? " turn" : ""}${own ? " own" : ""}`} data-seat=${index}>
    <div class="seat-name">
      ${(details.markers ?? []).map((marker) => html`<span class="marker" key=${marker.key} title=${marker.title}
        role="img" aria-label=${marker.title}>${marker.text}</span>`)}
      <strong>${ctx.names[index]}</strong>
      ${index === ctx.mine ? html` <span class="you">(${t("web.you")})</span>` : null}
      <${SeatChip} seat=${seat} />
      ${seat.replaced && !past ? html` <span class="away">${t("web.away")}</span>` : null}
      ${seat.kind === "human" && !seat.present && !past ? html` <span class="away">${t("web.offline")}</span>` : null}
      ${turn && frame.deadline && !frame.result ? html` <${Countdown} deadline=${frame.deadline} />` : null}
    </div>
    <div class="seat-facts">
      ${details.score !== undefined ? html`<span class="score">${t("web.points", { points: details.score })}</span>` : null}
      ${(details.lines ?? []).map((line) => html`<span key=${line}>${line}</span>`)}
      ${details.handSize > 0 && index !== ctx.mine ? html`<${Backs} count=${details.handSize} />` : null}
    </div>
    ${details.area ?? null}
  </div>`;
}

/** This person's seat, what to do now, the hand and the moves: pinned at the bottom. */
function Dock({ info, frame, module, ctx }) {
  const myTurn = frame.to_act === ctx.mine && !frame.result;
  const rest = ctx.legal.filter((action) => !module.handles(action));
  const dock = useRef(null);
  useEffect(() => {
    if (!myTurn) return undefined;
    // the board and the dock may still change size (a result shown, a prompt on two lines)
    const node = dock.current;
    const resized = new ResizeObserver(() => bringIntoSight(node));
    resized.observe(node);
    if (node.previousElementSibling) resized.observe(node.previousElementSibling);
    return () => resized.disconnect();
  }, [myTurn]);
  useEffect(() => {
    if (myTurn) offerFirstMove(dock.current);
  }, [myTurn, frame.seq]);
  return html`<section class=${`dock${myTurn ? " my-turn" : ""}${frame.result ? " over" : ""}`} id="dock" ref=${dock}
    aria-label=${t("web.your_place")} tabindex="-1">
    <${SeatPlate} index=${ctx.mine} info=${info} frame=${frame} module=${module} ctx=${ctx} own=${true} />
    <p class="prompt" id="prompt">${myTurn ? module.prompt(frame.view, ctx) : frame.result ? "" : statusText(info, frame, ctx)}</p>
    ${frame.result ? null : html`<${TakeBack} info=${info} frame=${frame} ctx=${ctx} />`}
    ${module.hand(frame.view, ctx)}
    ${rest.length ? html`<${ActionBar} actions=${rest} act=${ctx.act} />` : null}
  </section>`;
}

/**
 * When the person's turn comes, and while the board or the dock change size during it, scroll so
 * that the pinned dock sits where it belongs, right under the board (the last trick or result
 * above it is then in sight too), and a dock that scrolls inside shows its first move. Not while
 * they type or choose something, nor when they scrolled themselves a moment ago.
 */
function bringIntoSight(dock) {
  if (!dock || !mayScroll()) return;
  const felt = dock.previousElementSibling;
  const bottom = felt.getBoundingClientRect().bottom + window.scrollY + dock.offsetHeight;
  window.scrollTo({ top: Math.max(0, bottom - window.innerHeight + 8), behavior: "smooth" });
  // a dock taller than its share of a phone's screen scrolls inside: show its first move
  const move = dock.querySelector("[data-action]:not([disabled]), [data-pick]");
  if (move) {
    const needed = move.offsetTop + move.offsetHeight + 8 - dock.clientHeight;
    if (needed > dock.scrollTop) dock.scrollTop = needed;
  }
}

const PLAYABLE = "[data-action]:not([disabled]), [data-pick]:not([disabled]), input, select";

/** When the person's turn comes, keyboard focus goes to their first playable card or the move's
 * control, so that it takes no Tab press to reach the hand; not while their focus is elsewhere
 * on purpose (typing in the chat, on a button of the page). */
function offerFirstMove(dock) {
  const active = document.activeElement;
  const free = !active || active === document.body
    || (dock.contains(active) && !active.matches("input, select, textarea"));
  if (free) dock.querySelector(PLAYABLE)?.focus({ preventScroll: true });
}

/** The skip link's target: the first playable control, or the dock itself when none is. */
export function focusHand() {
  const dock = document.getElementById("dock");
  (dock?.querySelector(PLAYABLE) ?? dock)?.focus();
}

/** Not while the person types or chooses something, nor when they scrolled a moment ago. */
function mayScroll() {
  const busy = document.activeElement?.matches("input, select, textarea");
  return !busy && Date.now() - lastScrolledByHand >= 4000;
}

let lastScrolledByHand = 0;
for (const kind of ["wheel", "touchmove", "keydown"]) {
  window.addEventListener(kind, (event) => {
    if (kind !== "keydown" || ["PageUp", "PageDown", "ArrowUp", "ArrowDown", "Home", "End", " "].includes(event.key)) {
      lastScrolledByHand = Date.now();
    }
  }, { passive: true });
}

/** Moves the board does not draw itself, as buttons grouped by verb. */
/**
 * Taking back a misclick: the button while the server offers it, and at a rated table the
 * request that waits for the others' answer (or asks this person for theirs).
 */
function TakeBack({ info, frame, ctx }) {
  const asked = info.take_back;
  const undo = (answer) => send({ type: "undo", table: info.table, seq: frame.seq, answer });
  if (asked && asked.seat === ctx.mine) {
    return html`<p class="take-back hint" id="take-back" role="status">${t("web.take_back_waiting")}</p>`;
  }
  if (asked && !asked.agreed.includes(ctx.mine)) {
    return html`<div class="take-back row" id="take-back" role="group" aria-label=${t("web.take_back")}>
      <span>${t("web.take_back_asked", { name: ctx.names[asked.seat] })}</span>
      <button onClick=${() => undo("yes")}>${t("web.take_back_agree")}</button>
      <button onClick=${() => undo("no")}>${t("web.take_back_refuse")}</button>
    </div>`;
  }
  if (asked) return html`<p class="take-back hint" id="take-back" role="status">${t("web.take_back_agreed")}</p>`;
  if (!frame.take_back) return null;
  return html`<div class="take-back row" id="take-back">
    <button id="take-back-button" onClick=${() => undo("ask")}
      title=${t(info.rated ? "web.take_back_rated" : "web.take_back_unrated")}>↶ ${t("web.take_back")}</button>
  </div>`;
}

function ActionBar({ actions, act }) {
  const groups = new Map();
  for (const action of actions) {
    const verb = action.split(" ")[0];
    if (!groups.has(verb)) groups.set(verb, []);
    groups.get(verb).push(action);
  }
  return html`<div class="actions" id="actions">
    ${[...groups].map(([verb, list]) => html`<div class="row" key=${verb}>
      <span class="verb">${t(`web.verb.${verb}`)}</span>
      ${list.map((action) => html`<button key=${action} class="primary" data-action=${action} onClick=${() => act(action)}>
        ${action.split(" ").slice(1).join(" ") || t(`web.verb.${verb}`)}</button>`)}
    </div>`)}
  </div>`;
}

const SUMMARY_MS = 12_000;

const NARROW = "(max-width: 40rem)";

/** The summary of a finished round or deal, for a while or until the person closes it. On a
 * phone it comes folded to its title, so that the next deal's cards and the prompt stay in
 * sight; a tap opens it, and it stays as the person left it while play goes on. */
function Summary({ table, summary }) {
  const [open, setOpen] = useState(() => !matchMedia(NARROW).matches);
  useEffect(() => {  // the score sheet keeps it; the board is needed for the next round
    const timer = setTimeout(() => {
      if (state.summaries[table] === summary) { delete state.summaries[table]; changed(); }
    }, SUMMARY_MS);
    return () => clearTimeout(timer);
  }, [summary]);
  return html`<div class="summary panel" id="summary" role="region" aria-label=${summary.title}>
    <div class="row"><h2 class="small"><button class="fold" id="summary-toggle" aria-expanded=${open ? "true" : "false"}
        onClick=${() => setOpen(!open)}>${summary.title}</button></h2>
      <button class="close" onClick=${() => { delete state.summaries[table]; changed(); }}>${t("web.close")}</button></div>
    ${open ? html`<table class="sheet">
      <thead><tr>${summary.head.map((cell) => html`<th scope="col">${cell
        || html`<span class="visually-hidden">${t("web.player")}</span>`}</th>`)}</tr></thead>
      <tbody>${summary.rows.map((row) => html`<tr>${row.map((cell, index) => index
        ? html`<td>${cell}</td>` : html`<th scope="row">${cell}</th>`)}</tr>`)}</tbody>
    </table>` : null}
  </div>`;
}

/** The game's score sheet, if its board draws one: at the table, and under a replay. */
export function ScoreSheet({ info, view, ctx = tableContext(info, null) }) {
  const module = state.boards[info.game];
  return module.sheet ? html`<section class="panel sheet-panel"><h2 class="small">${t("web.score_sheet")}</h2>
    ${module.sheet(view, ctx)}</section>` : null;
}

/** The end: places, totals, a rematch and the replay. */
function EndScreen({ info, frame, ctx }) {
  const order = ranking(frame.result, frame.winners);
  const rematch = state.rematches[info.table];
  const seated = frame.seat !== null;
  const ratings = info.ratings ?? [];
  // the end appears above the board, maybe a screen or two up on a phone: bring it into sight
  const end = useRef(null);
  useEffect(() => {
    if (end.current && mayScroll()) end.current.scrollIntoView({ behavior: "smooth", block: "start" });
  }, []);
  return html`<section class="panel end" id="end" ref=${end} aria-labelledby="end-heading">
    <h2 id="end-heading">${t("web.game_over")}</h2>
    <ol class="ranking">
      ${order.map(({ points, index, place }) => html`<li key=${index} class=${place === 1 ? "first" : ""} data-seat=${index}>
        <span class="place">${t("web.place", { place })}</span>
        <strong><${PlayerLink} name=${ctx.names[index]} account=${accountName(info.seats[index])} /></strong>
        ${index === frame.seat ? html`<span class="you">(${t("web.you")})</span>` : null}
        <span>${t("web.points", { points })}</span>
        ${ratings[index] ? html`<${RatingChange} before=${ratings[index].before} after=${ratings[index].after} />`
          : ratings.some(Boolean) ? html`<span class="chip">${t("web.not_rated")}</span>` : null}</li>`)}
    </ol>
    <p class="hint">${!info.rated ? t("web.unrated_game") : ratings.some(Boolean) ? t("web.rated_game_hint") : t("web.nobody_rated")}</p>
    <div class="row">
      ${rematch ? html`<a class="button primary" id="rematch-link" href=${`#table=${rematch}`}>${t("web.rematch_open", { table: rematch })}</a>`
        : seated ? html`<button class="primary" id="rematch" onClick=${() => send({ type: "rematch", table: info.table }, (answer) => {
          if (answer.type === "ack" && answer.table) { state.rematches[info.table] = answer.table; location.hash = `table=${answer.table}`; }
        })}>${t("web.rematch")}</button>` : null}
      <button id="replay" onClick=${() => openReplay(info.table)}>${t("web.replay")}</button>
      <a class="button" href="#">${t("web.back")}</a>
    </div>
  </section>`;
}

async function openReplay(id) {
  try {
    state.replay = { table: id, steps: await api(`/api/tables/${id}/replay`), index: 0 };
    changed();
  } catch (error) { tell(error.message); }
}

/** A finished game step by step, every hand shown: by move, by trick and by round. */
export function Replay({ info, module }) {
  const replay = state.replay;
  const steps = replay.steps;
  const step = steps[replay.index];
  const ctx = { ...tableContext(info, null), reveal: step.seats ?? null, seq: replay.index };
  const go = (index) => { replay.index = Math.max(0, Math.min(steps.length - 1, index)); changed(); };
  const trickKey = (index) => JSON.stringify(module.lastTrick?.(steps[index].view) ?? null);
  const segmentOf = (index) => steps[index].segment ?? 0;
  const seek = (direction, same) => {
    let index = replay.index + direction;
    while (index > 0 && index < steps.length - 1 && same(index)) index += direction;
    go(index);
  };
  const before = replay.index > 0 ? steps[replay.index - 1].view : null;
  const completed = before && trickKey(replay.index) !== trickKey(replay.index - 1)
    ? module.lastTrick(step.view) : null;
  const words = before ? module.describe(before, step.view, ctx) : [];
  const frame = { seq: replay.index, view: step.view, to_act: step.view.current_player ?? null, seat: null, legal: [] };
  return html`<section class="panel" id="replay-panel">
    <div class="row replay-controls">
      <h2 class="small">${t("web.replay")}</h2>
      <span>${t("web.step", { number: replay.index + 1, count: steps.length })}</span>
      <button onClick=${() => seek(-1, (index) => segmentOf(index) === segmentOf(replay.index))}>${t("web.previous_round")}</button>
      ${module.lastTrick ? html`<button onClick=${() => seek(-1, (index) => trickKey(index) === trickKey(replay.index))}>${t("web.previous_trick")}</button>` : null}
      <button id="replay-previous" onClick=${() => go(replay.index - 1)}>${t("web.previous")}</button>
      <button id="replay-next" onClick=${() => go(replay.index + 1)}>${t("web.next")}</button>
      ${module.lastTrick ? html`<button id="replay-next-trick" onClick=${() => seek(1, (index) => trickKey(index) === trickKey(replay.index))}>${t("web.next_trick")}</button>` : null}
      <button onClick=${() => seek(1, (index) => segmentOf(index) === segmentOf(replay.index))}>${t("web.next_round")}</button>
      <button onClick=${() => { state.replay = null; changed(); }}>${t("web.close")}</button>
    </div>
    <${ReviewPanel} info=${info} module=${module} go=${go} />
    <ul class="replay-words" id="replay-words">${(words.length ? words : [t("web.replay_start")]).map((line) => html`<li key=${line}>${line}</li>`)}</ul>
    <div class="felt replay">
      <div class="others">${info.seats.map((_, index) => html`<${SeatPlate} key=${index} index=${index} info=${info}
        frame=${frame} module=${module} ctx=${ctx} past=${true} />`)}</div>
      <div class="board">${module.center(step.view, { ...ctx, shownTrick: completed })}</div>
    </div>
  </section>`;
}
