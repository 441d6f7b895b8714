// Abluxxen's board: at each seat the hand as backs and the sets laid, the top one (the one a
// steal may take) set apart; in the middle the set laid this turn with the steals it makes, the
// display and the pile; in the dock the hand, where a set is picked card by card and then laid,
// and the choices of a steal and of drawing, each shown with the cards it is about.
import { html, useState } from "../ui.js";
import { Card, cardKeys, signed } from "../cards.js";
import { t, tn } from "../i18n.js";

/** A symbol per number, so that no number is told by its colour alone. */
const SYMBOLS = { X: "✱", 1: "●", 2: "◆", 3: "▲", 4: "■", 5: "✦", 6: "♥", 7: "♣", 8: "♠", 9: "✿",
  10: "✹", 11: "☾", 12: "✚", 13: "♛" };
const JOKER = "X";

function text(key, args) {
  return t(`abluxxen.board.${key}`, args);
}

function plural(key, count, args) {
  return tn(`abluxxen.board.${key}`, count, args);
}

function face(code) {
  const center = html`<span class="abx-number">${code}</span><span class="abx-symbol">${SYMBOLS[code]}</span>`;
  return { code, tone: code === JOKER ? "abx-joker" : `abx-${code}`, rank: code, symbol: SYMBOLS[code], center,
    name: code === JOKER ? text("joker") : text("card", { value: code }) };
}

/** The cards of a set in the engine's notation: `7x3`, `7x2+J`, `7x1+2J`, `J`, `Jx3`. */
function setCards(code) {
  if (code.startsWith("J")) return Array(code === "J" ? 1 : Number(code.slice(2))).fill(JOKER);
  const [base, extra] = code.split("+");
  const [value, numbers] = base.split("x");
  const jokers = !extra ? 0 : extra === "J" ? 1 : Number(extra.slice(0, -1));
  return [...Array(Number(numbers)).fill(value), ...Array(jokers).fill(JOKER)];
}

/** The notation of picked cards, or null when they are no set (two numbers, or nothing). */
function setCode(cards) {
  const jokers = cards.filter((card) => card === JOKER).length;
  const numbers = cards.filter((card) => card !== JOKER);
  if (!cards.length || new Set(numbers).size > 1) return null;
  if (!numbers.length) return jokers === 1 ? "J" : `Jx${jokers}`;
  const extra = !jokers ? "" : jokers === 1 ? "+J" : `+${jokers}J`;
  return `${numbers[0]}x${numbers.length}${extra}`;
}

/** A set's value: its number, or 14 for jokers alone (they beat 13s). */
function setValue(cards) {
  const number = cards.find((card) => card !== JOKER);
  return number === undefined ? 14 : Number(number);
}

/** A set in words: "7×3", "7×2 + joker", "2 jokers". */
function setWords(cards) {
  const jokers = cards.filter((card) => card === JOKER).length;
  const numbers = cards.length - jokers;
  if (!numbers) return plural("jokers", jokers);
  const value = cards.find((card) => card !== JOKER);
  return jokers ? plural("set_jokers", jokers, { value, numbers }) : text("set", { value, numbers });
}

function cardWords(cards) {
  return cards.map((card) => (card === JOKER ? text("joker") : card)).join(" + ");
}

/** A move of the record's notation as words for a sentence: "laying 7×3". */
function moveWords(action) {
  const words = action.split(" ");
  if (words[0] === "set") return text("move_set", { set: setWords(setCards(words[1])) });
  if (action === "draw pile") return text("move_draw_pile");
  if (words[0] === "draw" && words[1] === "display") return text("move_draw_display", { number: words[2] });
  if (["take", "decline", "keep", "discard"].includes(action)) return text(`move_${action}`);
  return null;
}

/** What is in `after` and not in `before`, card by card. */
function gained(before, after) {
  const left = [...(before ?? [])];
  return (after ?? []).filter((card) => {
    const index = left.indexOf(card);
    if (index < 0) return true;
    left.splice(index, 1);
    return false;
  });
}

function laidCount(view, seat) {
  return (view.stacks[seat] ?? []).reduce((sum, code) => sum + setCards(code).length, 0);
}

function SetCards({ cards, label = null }) {
  return html`<span class="abx-set" role="group" aria-label=${label ?? setWords(cards)}>
    ${cards.map((card, index) => html`<${Card} key=${index} small=${true} face=${face(card)} />`)}</span>`;
}

function paw() {
  return html`<svg class="abx-paw" viewBox="0 0 20 20" aria-hidden="true" focusable="false">
    <ellipse cx="10" cy="13.6" rx="4.7" ry="3.9" /><circle cx="3.8" cy="8.2" r="2.2" />
    <circle cx="7.9" cy="4.4" r="2.2" /><circle cx="12.1" cy="4.4" r="2.2" /><circle cx="16.2" cy="8.2" r="2.2" /></svg>`;
}

function playing(view) {
  return !["start", "deal", "end"].includes(view.phase);
}

/** What the seat that must act now is choosing. */
function actingTitle(view, names) {
  const victim = view.victim === null ? "" : names[view.victim];
  if (view.phase === "steal") return text("acting_steal", { victim });
  if (view.phase === "victim") return text("acting_victim", { name: names[view.active] });
  if (view.phase === "draw") return plural("acting_draw", view.draws_left);
  if (view.phase === "dummy_choice") return text("acting_dummy");
  return text("acting_play");
}

// -- what happened: the log, and the turn shown in the middle until the next set is laid -------

/** Each view's turn so far (the set laid and the steals it made), as the log followed it. */
const turns = new WeakMap();

/** The turn as far as one view tells it alone: the set laid, the steal being decided. */
function turnInView(view) {
  if (!view?.played) return null;
  const pending = ["steal", "victim"].includes(view.phase) && view.victim !== null
    ? [{ victim: view.victim, cards: view.in_play, outcome: view.phase === "steal" ? "pending" : "declined" }] : [];
  return { active: view.active, set: view.played, game: view.game_number, steals: pending };
}

function turnOf(view) {
  const followed = turns.get(view);
  const stale = view?.played && (!followed || followed.active !== view.active || followed.set !== view.played);
  return stale ? turnInView(view) : followed ?? turnInView(view);
}

/** The turn with a steal's outcome: the victim's last undecided steal, or a new one. */
function withOutcome(turn, victim, cards, outcome) {
  const steals = [...turn.steals];
  const open = steals.findLastIndex((steal) => steal.victim === victim && ["pending", "declined"].includes(steal.outcome));
  if (open >= 0) steals[open] = { ...steals[open], outcome };
  else steals.push({ victim, cards, outcome });
  return { ...turn, steals };
}

function describe(before, after, { names }) {
  const lines = [];
  const say = (line) => lines.push(line);
  const newGame = after.game_number !== before.game_number;
  const ended = (after.past_games?.length ?? 0) > (before.past_games?.length ?? 0);
  let turn = turnOf(before) ?? { active: before.active, set: before.played, game: before.game_number, steals: [] };
  switch (before.phase) {
    case "steal": {
      const declined = after.phase === "victim" && !newGame;
      const args = { name: names[before.active], victim: names[before.victim], set: setWords(before.in_play) };
      say(text(declined ? "log_decline" : "log_take", args));
      turn = withOutcome(turn, before.victim, before.in_play, declined ? "declined" : "taken");
      break;
    }
    case "victim": {
      const discarded = !newGame && after.discard.length > before.discard.length;
      say(text(discarded ? "log_discard" : "log_keep", { name: names[before.victim], set: setWords(before.in_play),
        count: before.in_play.length }));
      turn = withOutcome(turn, before.victim, before.in_play, discarded ? "discarded" : "kept");
      break;
    }
    case "draw": {
      const drawer = before.drawer;
      const shown = newGame ? [] : gained(before.known_in_hand[drawer], after.known_in_hand[drawer]);
      const own = newGame || after.seat !== drawer ? [] : gained(before.hand, after.hand);
      if (shown.length) say(text("log_draw_display", { name: names[drawer], cards: cardWords(shown) }));
      else if (own.length) say(text("log_draw_pile_seen", { name: names[drawer], card: cardWords(own) }));
      else if (!ended) say(text("log_draw_pile", { name: names[drawer] }));
      if (ended) say(text("log_exhausted"));
      break;
    }
    default: {
      // A set laid: the first view of a replay is before the deal, so the mover is the seat whose stack grew.
      const mover = newGame ? -1 : after.stacks.findIndex((sets, seat) => sets.length > (before.stacks[seat]?.length ?? 0));
      if (mover >= 0) {
        const laid = after.stacks[mover][after.stacks[mover].length - 1];
        say(text("log_lay", { name: names[mover], set: setWords(setCards(laid)) }));
        turn = { active: mover, set: laid, game: after.game_number, steals: [] };
      }
      if (ended && before.phase === "play") say(text("log_last_cards", { name: names[before.active] }));
      break;
    }
  }
  const fromDummy = newGame ? [] : gained(after.dummy, before.dummy);
  if (fromDummy.length) {
    say(text("log_dummy", { name: names[before.active], set: setWords(fromDummy) }));
    turn = { ...turn, steals: [...turn.steals, { victim: null, cards: fromDummy, outcome: "taken" }] };
  }
  if (!newGame && after.phase === "steal") {
    say(text("log_beats", { name: names[after.active], set: setWords(setCards(after.played)),
      victim: names[after.victim], stolen: setWords(after.in_play) }));
    turn = withOutcome(turn, after.victim, after.in_play, "pending");
  }
  if (ended) {
    const game = after.past_games[after.past_games.length - 1];
    say(text("log_game_over", { number: game.game_number,
      points: names.map((name, seat) => `${name} ${signed(game.points[seat])}`).join(", ") }));
  }
  if (newGame) say(text("log_new_game", { number: after.game_number, name: names[after.starter] }));
  if (turn?.set && !newGame) turns.set(after, turn);
  return lines;
}

/** A finished game's table: cards laid and in hand, when the views tell them, and points. */
function summary(before, after, { names }) {
  const done = after.past_games ?? [];
  if (done.length <= (before.past_games?.length ?? 0)) return null;
  const game = done[done.length - 1];
  const sameTable = after.game_number === game.game_number;
  const finalMove = before.phase === "play" ? before.active : null;
  const laid = names.map((_, seat) => (sameTable ? laidCount(after, seat)
    : laidCount(before, seat) + (seat === finalMove ? before.hand_sizes[seat] : 0)));
  const series = after.games !== 1;
  const totals = names.map((_, seat) => done.reduce((sum, each) => sum + each.points[seat], 0));
  return {
    title: text("summary", { number: game.game_number }),
    head: ["", text("column_laid"), text("column_hand"), t("web.points_column"), ...(series ? [t("web.total")] : [])],
    rows: names.map((name, seat) => [name, laid[seat], laid[seat] - game.points[seat], signed(game.points[seat]),
      ...(series ? [totals[seat]] : [])]),
  };
}

// -- the seats ------------------------------------------------------------------------------------

function seat(view, index, ctx) {
  const markers = [];
  if (playing(view) && view.active === index) {
    // The paw is a drawing: its words are there as text too, for whoever cannot see it.
    markers.push({ key: "active", text: html`${paw()}<span class="visually-hidden">${text("active_title")}</span>`,
      title: text("active_title") });
  }
  if (playing(view) && view.current_player === index) {
    markers.push({ key: "acting", text: html`<span class="abx-star">★</span>`, title: actingTitle(view, ctx.names) });
  }
  const known = view.known_in_hand?.[index] ?? [];
  const lines = [text("laid", { count: laidCount(view, index) })];
  if (known.length && index !== ctx.mine) lines.push(text("known", { cards: known.join(", ") }));
  if (view.games !== 1) lines.push(text("series_total", { points: view.scores[index] }));
  return {
    score: view.game_scores[index],
    markers,
    lines,
    handSize: view.hand_sizes[index],
    area: html`<${SeatArea} view=${view} index=${index} ctx=${ctx} />`,
  };
}

/** The sets a seat has laid, oldest first, the top one set apart; in a replay, the hand. */
function SeatArea({ view, index, ctx }) {
  const sets = view.stacks[index] ?? [];
  const top = sets[sets.length - 1];
  const revealed = ctx.reveal?.[index]?.hand;
  return html`<div class="abx abx-area">
    ${sets.length ? html`<div class="abx-stack" role="group" aria-label=${text("stack_label", { name: ctx.names[index] })}>
      ${sets.slice(0, -1).map((code, number) => html`<${SetCards} key=${number} cards=${setCards(code)} />`)}
      <span class="abx-top" title=${text("top_title")}><span class="abx-top-label">${text("top")}</span>
        <${SetCards} cards=${setCards(top)} label=${text("top_label", { set: setWords(setCards(top)) })} /></span>
    </div>` : html`<p class="abx-empty">${text("no_sets")}</p>`}
    ${revealed ? html`<div class="abx-revealed" role="group" aria-label=${text("revealed_hand")}>
      <span class="abx-caption">${text("revealed_hand")}</span>
      ${cardKeys(revealed).map((key, number) => html`<${Card} key=${key} small=${true} face=${face(revealed[number])} />`)}</div>` : null}
  </div>`;
}

// -- the middle of the table ----------------------------------------------------------------------

function center(view, ctx) {
  const series = view.games === 1 ? null : view.games === null
    ? t("abluxxen.game_to_target", { number: view.game_number, target: view.series_target })
    : t("abluxxen.game_of", { number: view.game_number, games: view.games });
  const drawing = view.phase === "draw" && view.drawer !== null;
  return html`<div class="abx abx-center">
    ${series ? html`<p class="abx-series" id="series">${series}</p>` : null}
    <${TurnPanel} view=${view} ctx=${ctx} />
    <div class=${`abx-supply${drawing ? " drawing" : ""}`} id="supply">
      ${drawing ? html`<p class="abx-draw-note" id="draw-note">${plural("drawing", view.draws_left, { name: ctx.names[view.drawer] })}</p>` : null}
      <div class="abx-display" role="group" aria-label=${text("display")}>
        <span class="abx-caption">${text("display")}</span>
        <div class="abx-cards">${cardKeys(view.display.map((entry) => entry.join("+"))).map((key, index) => html`<${DisplayEntry}
          key=${key} entry=${view.display[index]} />`)}</div>
      </div>
      <div class="abx-pile" role="img" aria-label=${plural("pile", view.pile_size)}>
        <span class="abx-back" aria-hidden="true"></span><span>${plural("pile", view.pile_size)}</span></div>
      <div class="abx-discard">
        ${view.discard.length ? html`<${Card} small=${true} face=${face(view.discard[view.discard.length - 1])} />` : null}
        <span>${plural("discarded", view.discard.length)}</span></div>
    </div>
    ${view.dummy?.length ? html`<div class="abx-dummy" role="group" aria-label=${text("dummy")}>
      <span class="abx-caption">${text("dummy")}</span>
      <div class="abx-cards">${cardKeys(view.dummy).map((key, index) => html`<${Card} key=${key} small=${true} face=${face(view.dummy[index])} />`)}</div>
    </div>` : null}
    <${Legend} />
  </div>`;
}

/** What the marks on the seats mean, in view: a phone shows no hover titles. */
function Legend() {
  return html`<details class="abx-legend" id="abx-legend" open>
    <summary>${text("legend_title")}</summary>
    <ul>
      <li><span class="marker" aria-hidden="true">${paw()}</span> ${text("legend_active")}</li>
      <li><span class="marker" aria-hidden="true"><span class="abx-star">★</span></span> ${text("legend_acting")}</li>
      <li><span class="abx-top-label abx-legend-top" aria-hidden="true">${text("top")}</span> ${text("legend_top")}</li>
      <li>${text("legend_known")}</li>
    </ul>
  </details>`;
}

function DisplayEntry({ entry }) {
  if (entry.length === 1) return html`<${Card} face=${face(entry[0])} />`;
  return html`<span class="abx-entry">${entry.map((card, index) => html`<${Card} key=${index} face=${face(card)} />`)}</span>`;
}

/** The set laid this turn and what became of each steal; between turns, the last turn. */
function TurnPanel({ view, ctx }) {
  const turn = turnOf(view);
  if (!turn || turn.game !== view.game_number) {
    return playing(view) ? html`<div class="abx-turn" id="turn"><p>${view.active === ctx.mine
      ? text("turn_yours") : text("turn_next", { name: ctx.names[view.active] })}</p></div>` : null;
  }
  const names = ctx.names;
  const current = view.played !== null;
  const laid = setCards(turn.set);
  return html`<div class=${`abx-turn${current ? " current" : ""}`} id="turn">
    <div class="abx-laid">
      <span>${text(current ? "turn_lays" : "turn_laid", { name: names[turn.active] })}</span>
      <${SetCards} cards=${laid} />
    </div>
    ${turn.steals.length ? html`<ul class="abx-steals" id="steals">
      ${turn.steals.map((steal, index) => html`<li key=${index} class=${`abx-steal ${steal.outcome}`}>
        <span>${steal.victim === null ? text("from_dummy") : text("from_seat", { victim: names[steal.victim] })}</span>
        <${SetCards} cards=${steal.cards} />
        <strong>${outcomeWords(steal, turn, names)}</strong></li>`)}
    </ul>` : html`<p class="abx-no-steal">${text(view.phase === "end" ? "turn_end" : "no_steal")}</p>`}
  </div>`;
}

function outcomeWords(steal, turn, names) {
  const args = { name: names[turn.active], victim: names[steal.victim] ?? "", count: steal.cards.length };
  if (steal.victim === null) return text("outcome_dummy", args);
  if (steal.outcome === "pending") return text("outcome_pending", args);
  if (steal.outcome === "declined") return text("outcome_declined", args);
  if (steal.outcome === "taken") return plural("outcome_taken", steal.cards.length, args);
  if (steal.outcome === "kept") return text("outcome_kept", args);
  return plural("outcome_discarded", steal.cards.length, args);
}

// -- the dock: the hand and the choices -----------------------------------------------------------

function hand(view, ctx) {
  if (ctx.mine === null) return null;
  const legal = ctx.legal;
  const draws = legal.filter((action) => action.startsWith("draw "));
  const fromDummy = legal.filter((action) => action.startsWith("steal dummy "));
  const picking = legal.some((action) => action.startsWith("set "));
  return html`<div class="abx abx-dock">
    ${legal.includes("take") ? html`<${StealChoice} view=${view} ctx=${ctx} />` : null}
    ${legal.includes("keep") ? html`<${VictimChoice} view=${view} ctx=${ctx} />` : null}
    ${draws.length ? html`<${DrawChoice} view=${view} ctx=${ctx} draws=${draws} />` : null}
    ${fromDummy.length ? html`<${DummyChoice} view=${view} ctx=${ctx} actions=${fromDummy} />` : null}
    ${picking ? html`<${SetPicker} view=${view} ctx=${ctx} />`
      : html`<div class="hand abx-hand" id="hand" role="group" aria-label=${t("web.hand")}>
        ${cardKeys(view.hand).map((key, index) => html`<${Card} key=${key} face=${face(view.hand[index])} />`)}</div>`}
  </div>`;
}

/** Cards picked one by one, then laid: the button carries the move only while they form a set
 * this hand may lay. Picks last while the position stays the same (a chat line redraws). */
function SetPicker({ view, ctx }) {
  const position = `${ctx.seq}:${view.hand.join(" ")}`;
  const [picking, setPicking] = useState({ position, picked: [] });
  const picked = picking.position === position ? picking.picked : [];
  const toggle = (index) => setPicking({ position,
    picked: picked.includes(index) ? picked.filter((each) => each !== index) : [...picked, index].sort((a, b) => a - b) });
  const cards = picked.map((index) => view.hand[index]);
  const code = setCode(cards);
  const action = code && ctx.legal.includes(`set ${code}`) ? `set ${code}` : null;
  return html`
    <div class="hand abx-hand" id="hand" role="group" aria-label=${t("web.hand")}>
      ${cardKeys(view.hand).map((key, index) => html`<${Card} key=${key} face=${face(view.hand[index])}
        picked=${picked.includes(index)} onPlay=${() => toggle(index)} />`)}
    </div>
    <div class="row abx-lay">
      <button class="primary" id="lay" data-action=${action} disabled=${!action} onClick=${() => action && ctx.act(action)}>
        ${action ? text("lay", { set: setWords(cards) }) : text("lay_pick")}</button>
      <span class="abx-hint" id="lay-hint" aria-live="polite">${layHint(view, ctx, cards, action)}</span>
    </div>`;
}

/** What the picked cards would do: not a set, or which top sets they would beat. */
function layHint(view, ctx, cards, action) {
  if (!cards.length) return text("hint_pick");
  if (!action) return text("hint_not_a_set");
  const value = setValue(cards);
  const beaten = view.stacks.map((sets, seat) => ({ seat, top: sets[sets.length - 1] }))
    .filter(({ seat, top }) => seat !== ctx.mine && top && setCards(top).length === cards.length
      && setValue(setCards(top)) < value);
  if (cards.length === view.hand.length) return text("hint_last_cards");
  if (!beaten.length) return text("hint_no_steal");
  return text("hint_steals", { names: beaten.map(({ seat, top }) => `${ctx.names[seat]} (${setWords(setCards(top))})`).join(", ") });
}

function StealChoice({ view, ctx }) {
  const args = { victim: ctx.names[view.victim], set: setWords(view.in_play), count: view.in_play.length };
  return html`<div class="abx-choice" id="steal-choice" role="group" aria-label=${text("steal_choice_label")}>
    <div class="row"><${SetCards} cards=${view.in_play} label=${text("choice_steal", args)} />
      <button class="primary" data-action="take" onClick=${() => ctx.act("take")}>${text("take")}</button>
      <button class="primary" data-action="decline" onClick=${() => ctx.act("decline")}>${text("decline")}</button>
    </div>
    <p class="hint">${plural("choice_steal_hint", view.in_play.length, args)}</p>
  </div>`;
}

function VictimChoice({ view, ctx }) {
  const args = { name: ctx.names[view.active], set: setWords(view.in_play) };
  return html`<div class="abx-choice" id="victim-choice" role="group" aria-label=${text("victim_choice_label")}>
    <div class="row"><${SetCards} cards=${view.in_play} label=${text("choice_victim", args)} />
      <button class="primary" data-action="keep" onClick=${() => ctx.act("keep")}>${text("keep")}</button>
      <button class="primary" data-action="discard" onClick=${() => ctx.act("discard")}>${plural("discard", view.in_play.length)}</button>
    </div>
  </div>`;
}

function DrawChoice({ view, ctx, draws }) {
  const can = new Set(draws);
  return html`<div class="abx-choice abx-draw" id="draw-choice" role="group" aria-label=${text("draw_choice_label")}>
    <div class="row">
      ${view.display.map((entry, index) => {
        const action = `draw display ${index + 1}`;
        if (!can.has(action)) return null;
        if (entry.length === 1) {
          return html`<${Card} key=${index} face=${face(entry[0])} action=${action} onPlay=${() => ctx.act(action)}
            caption=${text("draw_this")} />`;
        }
        return html`<button key=${index} class="abx-entry-button" data-action=${action} onClick=${() => ctx.act(action)}
          aria-label=${text("draw_these", { cards: cardWords(entry) })}>${entry.map((card, number) => html`<${Card}
          key=${number} small=${true} face=${face(card)} />`)}</button>`;
      })}
      ${can.has("draw pile") ? html`<button class="abx-pile-button" data-action="draw pile" onClick=${() => ctx.act("draw pile")}>
        <span class="abx-back" aria-hidden="true"></span>${plural("draw_pile", view.pile_size)}</button>` : null}
    </div>
  </div>`;
}

function DummyChoice({ view, ctx, actions }) {
  return html`<div class="abx-choice" id="dummy-choice" role="group" aria-label=${text("dummy")}>
    <div class="row">${actions.map((action) => {
      const value = action.split(" ")[2];
      const cards = view.dummy.filter((card) => card === value).slice(0, setCards(view.played).length);
      return html`<button key=${action} class="abx-entry-button" data-action=${action} onClick=${() => ctx.act(action)}
        aria-label=${text("take_from_dummy", { set: setWords(cards) })}>${cards.map((card, number) => html`<${Card}
        key=${number} small=${true} face=${face(card)} />`)}</button>`;
    })}</div>
  </div>`;
}

function prompt(view, ctx) {
  const legal = ctx.legal;
  if (legal.includes("take")) return text("prompt_steal", { victim: ctx.names[view.victim], set: setWords(view.in_play) });
  if (legal.includes("keep")) return text("prompt_victim", { name: ctx.names[view.active], set: setWords(view.in_play) });
  if (legal.some((action) => action.startsWith("draw "))) return plural("prompt_draw", view.draws_left);
  if (legal.some((action) => action.startsWith("steal dummy "))) return text("prompt_dummy");
  return text("prompt_play");
}

/** The kind of decision this seat faces now, for the guide's hints (texts/guide.*.toml). */
function decision(view, ctx) {
  const legal = ctx.legal;
  if (legal.includes("take")) return "steal";
  if (legal.includes("keep")) return "victim";
  if (legal.some((action) => action.startsWith("draw "))) return "draw";
  if (legal.some((action) => action.startsWith("steal dummy "))) return "dummy";
  return "lay";
}

function handles(action) {
  return /^(set \S+|take|decline|keep|discard|draw (display \d+|pile)|steal dummy \S+)$/.test(action);
}

function sheet(view, { names }) {
  const games = view.past_games ?? [];
  const going = playing(view) && !games.some((game) => game.game_number === view.game_number);
  return html`<table class="sheet abx-sheet">
    <thead><tr><th scope="col">${text("column_game")}</th>${names.map((name) => html`<th scope="col">${name}</th>`)}</tr></thead>
    <tbody>
      ${games.map((game) => html`<tr key=${game.game_number}><th scope="row">${game.game_number}</th>
        ${game.points.map((points, seat) => html`<td key=${seat}>${signed(points)}</td>`)}</tr>`)}
      ${going ? html`<tr class="abx-now"><th scope="row">${text("row_now", { number: view.game_number })}</th>
        ${view.game_scores.map((points, seat) => html`<td key=${seat}>${signed(points)}</td>`)}</tr>` : null}
      ${view.games !== 1 ? html`<tr class="total"><th scope="row">${t("web.total")}</th>
        ${view.scores.map((points, seat) => html`<td key=${seat}><strong>${points}</strong></td>`)}</tr>` : null}
    </tbody></table>
    <p class="hint">${text("sheet_hint")}</p>`;
}

export default { seat, center, hand, prompt, handles, decision, describe, summary, sheet, moveWords };
