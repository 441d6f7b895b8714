// Fzzzt!'s board: the conveyor belt with the card up for auction, the last auction's revealed bids,
// each seat's cards and production units, the hand to bid from and the robots to put to work.
// What each card shows (power, points, symbols, belt number) comes from the server's description
// of the game (GET /api/games), never from a table kept here.
import { html, useState } from "../ui.js";
import { Card, listNames, signed } from "../cards.js";
import { t, tn } from "../i18n.js";
import { state } from "../store.js";

const SYMBOLS = ["N", "B", "G", "O"];
const TONES = { mechanic: "neutral", starter: "blue", robot: "green", upgrade: "purple", fzzzt: "red", unit: "yellow" };
const ROBOT_KINDS = new Set(["starter", "robot", "upgrade"]);
const KIND_ORDER = ["mechanic", "starter", "robot", "upgrade", "fzzzt", "unit"];

const key = (name) => `fzzzt.board.${name}`;
const say = (name, args) => t(key(name), args);

/** What a card shows, from the server's card faces: kind, zap (bid power), points, symbols (a
 * unit's: those it needs), belt number, a unit's value; a mechanic's number is in its code (M3, S3a). */
function info(code) {
  const game = state.games.find((each) => each.name === "fzzzt");
  const face = game?.card_faces?.[code] ?? {};
  return {
    code,
    kind: face.kind ?? "robot",
    zap: face.zap ?? 0,
    vp: face.points ?? 0,
    symbols: SYMBOLS.filter((letter) => (face.symbols ?? "").includes(letter)),
    belt: face.belt ?? 0,
    value: face.value ?? 0,
    mechanic: Number(code.match(/\d/)?.[0] ?? 0),
  };
}

const isRobot = (code) => ROBOT_KINDS.has(info(code).kind);
const byKind = (a, b) => KIND_ORDER.indexOf(info(a).kind) - KIND_ORDER.indexOf(info(b).kind) || (a < b ? -1 : 1);

// -- drawings: four production symbols told apart by shape and letter, power, points, belt ---------

function SymbolIcon({ letter }) {
  const shapes = {
    N: html`<path fill-rule="evenodd" d="M10 1 18 5.5v9L10 19 2 14.5v-9zM10 6.6a3.4 3.4 0 1 0 0 6.8 3.4 3.4 0 0 0 0-6.8z" />`,
    B: html`<path d="M3 2h14v5H13v11.5l-1.5 1h-3L7 18.5V7H3z M7 9.5l6-1.4v1.6L7 11.1zM7 13l6-1.4v1.6L7 14.6z" />`,
    G: html`<path fill-rule="evenodd" d="M8.6 1h2.8l.5 2.6 1.7.7 2.2-1.5 2 2-1.5 2.2.7 1.7 2.6.5v2.8l-2.6.5-.7 1.7 1.5 2.2-2 2-2.2-1.5-1.7.7-.5 2.6H8.6l-.5-2.6-1.7-.7-2.2 1.5-2-2 1.5-2.2-.7-1.7L1 11.4V8.6l2.6-.5.7-1.7-1.5-2.2 2-2 2.2 1.5 1.7-.7zM10 7a3 3 0 1 0 0 6 3 3 0 0 0 0-6z" />`,
    O: html`<path d="M10 1.5C7.5 5.5 3.5 9.5 3.5 13a6.5 6.5 0 0 0 13 0c0-3.5-4-7.5-6.5-11.5z" />`,
  };
  return html`<svg class=${`fz-icon fz-sym-${letter}`} viewBox="0 0 20 20" aria-hidden="true">${shapes[letter]}</svg>`;
}

function Zap() {
  return html`<svg class="fz-icon fz-zap-icon" viewBox="0 0 20 20" aria-hidden="true"><path d="M12 1 3 11.5h6L7 19l10-11h-6l2-7z" /></svg>`;
}

function BeltIcon() {
  return html`<svg class="fz-icon fz-belt-icon" viewBox="0 0 20 20" aria-hidden="true"><path fill-rule="evenodd"
    d="M5 5h10a5 5 0 0 1 0 10H5A5 5 0 0 1 5 5zm0 2.5a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5zm10 0a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5z" /></svg>`;
}

function Spanner() {
  return html`<svg class="fz-icon" viewBox="0 0 20 20" aria-hidden="true"><path fill="currentColor"
    d="M14.5 1.5a4.5 4.5 0 0 0-4.3 5.9L2 15.6a1.7 1.7 0 0 0 2.4 2.4l8.2-8.2a4.5 4.5 0 0 0 5.9-4.3l-2.6 1.6-2-1.1-.1-2.3z" /></svg>`;
}

/** One production symbol: its shape and its letter, so it is never told by colour alone. */
function SymbolMark({ letter }) {
  return html`<span class="fz-symbol" title=${say(`symbol.${letter}`)}><${SymbolIcon} letter=${letter} /><b>${letter}</b></span>`;
}

function Symbols({ letters }) {
  return html`<span class="fz-symbols">${letters.map((letter) => html`<${SymbolMark} key=${letter} letter=${letter} />`)}</span>`;
}

function symbolWords(letters) {
  return listNames(letters.map((letter) => say(`symbol.${letter}`)));
}

/** A card in words, bare: "Robot R07". */
function cardName(code) {
  const card = info(code);
  return say(`name.${card.kind}`, { code, number: card.mechanic });
}

/** Symbols in one short run: "nut/bolt" for a robot (it supplies one of them), "nut + bolt"
 * for a unit (it needs them all). */
function symbolRun(letters, joint) {
  return letters.map((letter) => say(`symbol.${letter}`)).join(joint);
}

/** A card in words, for a sentence, with what matters in play and its code in brackets:
 * "the nut robot ⚡5 ★3 (R21)", "the nut + bolt production unit worth 5 (P08)". */
function theCard(code) {
  const card = info(code);
  return say(`the.${card.kind}`, { code, number: card.mechanic, zap: card.zap, points: card.vp < 0 ? signed(card.vp) : card.vp,
    symbols: symbolRun(card.symbols, card.kind === "unit" ? " + " : "/"), value: card.value });
}

/** A production unit in a short line: "unit nut + bolt (P08)". */
function unitName(code) {
  return say("unit_short", { code, symbols: symbolRun(info(code).symbols, " + ") });
}

/** A move of the record's notation as words for a sentence: "bidding Robot R07, Robot R12". */
function moveWords(action) {
  const words = action.split(" ");
  if (words[0] === "bid") return say("move_bid", { cards: words.slice(1).map(cardName).join(", ") });
  if (words[0] === "place" && words[1] === "chit") {
    return say("move_chit", { symbol: say(`symbol.${words[2]}`), unit: unitName(words[4]) });
  }
  if (words[0] === "place") return say("move_place", { card: cardName(words[1]), unit: unitName(words[3]) });
  if (action === "done") return say("move_done");
  return null;
}

/** Everything a card shows, in words: its title and what a screen reader says. */
function cardWords(code) {
  const card = info(code);
  if (card.kind === "unit") {
    return say("words_unit", { name: cardName(code), symbols: symbolWords(card.symbols), value: card.value, belt: card.belt });
  }
  return say("words_card", { name: cardName(code), zap: card.zap, points: tn(key("points"), card.vp, { count: card.vp < 0 ? signed(card.vp) : card.vp }),
    symbols: card.symbols.length ? symbolWords(card.symbols) : say("no_symbols"), belt: card.belt || "–" });
}

/** The drawn face of a card: power top left, points top right, kind, symbols, code, belt number. */
function FaceBody({ code, small }) {
  const card = info(code);
  const label = card.kind === "mechanic" || card.kind === "starter"
    ? say(`face.${card.kind}`, { number: card.mechanic }) : say(`face.${card.kind}`);
  if (card.kind === "unit") {
    return html`<span class="fz-face fz-unit-face">
      <span class="fz-value">${signed(card.value)}</span>
      ${small ? null : html`<span class="fz-kind">${label}</span><span class="fz-needs">${say("face.needs")}</span>`}
      <${Symbols} letters=${card.symbols} />
      <span class="fz-code">${code}</span>
      ${small ? null : html`<span class="fz-belt-number"><${BeltIcon} />${card.belt}</span>`}
    </span>`;
  }
  return html`<span class="fz-face">
    <span class="fz-zap"><${Zap} />${card.zap}</span>
    <span class="fz-vp">${card.vp < 0 ? signed(card.vp) : card.vp}<span aria-hidden="true">★</span></span>
    ${small ? null : html`<span class="fz-kind">${label}</span>`}
    ${card.kind === "fzzzt" ? html`<span class="fz-art" aria-hidden="true"><${Zap} /></span>` : null}
    ${card.kind === "mechanic" ? html`<span class="fz-art" aria-hidden="true"><${Spanner} /></span>` : null}
    ${card.symbols.length ? html`<${Symbols} letters=${card.symbols} />` : null}
    <span class="fz-code">${code}</span>
    ${small || !card.belt ? null : html`<span class="fz-belt-number"><${BeltIcon} />${card.belt}</span>`}
  </span>`;
}

/** A card of Fzzzt! through the shared Card: a button when `onPlay` is given. */
function FzCard({ code, small = false, onPlay = null, action = null, picked = null, caption = null, winner = false }) {
  const card = info(code);
  const face = { code, tone: TONES[card.kind], rank: "", name: cardWords(code) };
  return html`<${Card} face=${face} small=${small} onPlay=${onPlay} action=${action} picked=${picked}
    caption=${caption} winner=${winner} extra=${html`<${FaceBody} code=${code} small=${small} />`} />`;
}

function CardBack({ small = false }) {
  return html`<span class=${`card fz-back${small ? " small" : ""}`} role="img" aria-label=${say("face_down")}
    title=${say("face_down")}><span class="fz-back-mark" aria-hidden="true">F!</span></span>`;
}

// -- production units: how many sets the robots on a unit complete ----------------------------------

/** What each item on a unit can supply: a robot's symbols, or a chit's one symbol ("chit N"). */
function supplies(items) {
  return items.map((item) => (item.startsWith("chit ") ? [item.slice(5)] : info(item).symbols));
}

/** The needed symbols left over by a largest matching of needs to items, each item supplying one
 * (augmenting paths: a need that finds no item when its turn comes finds none later). */
function unmatched(needs, offered) {
  const owner = Array(offered.length).fill(-1);
  const assign = (slot, seen) => offered.some((symbols, item) => {
    if (seen.has(item) || !symbols.includes(needs[slot])) return false;
    seen.add(item);
    if (owner[item] === -1 || assign(owner[item], seen)) { owner[item] = slot; return true; }
    return false;
  });
  return needs.filter((_, slot) => !assign(slot, new Set()));
}

/** The largest k such that k different items supply each needed symbol. */
function completedSets(needs, offered) {
  let best = 0;
  for (let sets = 1; sets * needs.length <= offered.length; sets++) {
    if (unmatched(needs.flatMap((letter) => Array(sets).fill(letter)), offered).length) break;
    best = sets;
  }
  return best;
}

/** A unit's score as it stands: sets × value, or −value while never completed; and, until it is
 * completed, the symbols its robots and chits do not supply yet. */
export function unitScore(unit) {
  const card = info(unit.unit);
  const offered = supplies(unit.robots);
  const missing = unmatched(card.symbols, offered);
  const sets = missing.length ? 0 : completedSets(card.symbols, offered);
  return { sets, points: sets ? sets * card.value : -card.value, missing };
}

function unitWords(unit) {
  const { sets, points, missing } = unitScore(unit);
  return sets ? say("unit_done", { unit: unitName(unit.unit), sets, points: signed(points) })
    : say("unit_missing", { unit: unitName(unit.unit), symbols: symbolWords(missing), points: signed(points) });
}

/** A seat's score in parts: robots' points, Fzzzt! cards, units; the total is the engine's. */
function breakdown(view, seat) {
  const placed = view.units[seat].flatMap((unit) => unit.robots.filter((item) => !item.startsWith("chit ")));
  const cards = [...view.owned[seat], ...placed];
  return {
    robots: cards.filter(isRobot).length,
    robotPoints: cards.filter(isRobot).reduce((sum, code) => sum + info(code).vp, 0),
    fzzzts: cards.filter((code) => info(code).kind === "fzzzt").length,
    units: view.units[seat].map(unitWords),
  };
}

function Unit({ unit, small = true }) {
  const { sets, points, missing } = unitScore(unit);
  return html`<div class=${`fz-unit${sets ? " complete" : ""}`}>
    <div class="fz-unit-cards">
      <${FzCard} code=${unit.unit} small=${small} />
      ${unit.robots.map((item, index) => item.startsWith("chit ")
        ? html`<span key=${index} class="fz-chit" title=${say("chit", { symbol: say(`symbol.${item.slice(5)}`) })}><${SymbolMark} letter=${item.slice(5)} /></span>`
        : html`<${FzCard} key=${item} code=${item} small=${true} />`)}
    </div>
    <span class="fz-unit-status">${sets ? `✓ ${say("sets", { sets, points: signed(points) })}`
      : html`✗ ${say("not_complete", { points: signed(points) })}
        <span class="fz-unit-missing" data-missing=${missing.join(" ")}>${say("missing")}
          ${missing.map((letter, index) => html`<span key=${index} class="fz-need"><${SymbolMark} letter=${letter} /> ${say(`symbol.${letter}`)}</span>`)}</span>`}</span>
  </div>`;
}

// -- the seats -----------------------------------------------------------------------------------

function seat(view, index, ctx) {
  const markers = view.phase !== "end" && view.chief === index
    ? [{ key: "chief", text: html`<${Spanner} />`, title: say("chief_title") }] : [];
  const lines = [];
  if (view.chief === index && view.phase !== "end") lines.push(say("chief"));
  if (view.phase === "bid") {
    const size = view.bid_sizes[index];
    if (size !== null) lines.push(say("line_bid", { cards: tn("web.cards", size) }));
    else if (view.current_player === index) lines.push(say("line_bidding"));
    else if (!view.hand_sizes[index]) lines.push(say("line_no_cards"));
  }
  lines.push(say("line_piles", { draw: view.draw_sizes[index], discard: view.discards[index].length }));
  return {
    score: view.scores[index],
    markers,
    lines,
    handSize: view.hand_sizes[index],
    area: html`<${SeatArea} view=${view} index=${index} ctx=${ctx} />`,
  };
}

function SeatArea({ view, index, ctx }) {
  const revealed = ctx.reveal?.[index];
  const own = index === ctx.mine && !ctx.reveal;
  const owned = [...view.owned[index]].sort(byKind);
  return html`<div class="fz fz-area">
    ${revealed ? html`<${Row} label=${say("hand")} codes=${revealed.hand} />` : null}
    ${revealed?.bid?.length ? html`<${Row} label=${say("sealed_bid")} codes=${revealed.bid} />` : null}
    ${own ? html`<details class="fz-deck"><summary>${say("your_deck", { cards: tn("web.cards", owned.length) })}</summary>
        <div class="fz-cards">${owned.map((code) => html`<${FzCard} key=${code} code=${code} small=${true} />`)}</div></details>`
      : html`<${Row} label=${say("owns")} codes=${owned} />`}
    ${view.chits[index].length ? html`<div class="fz-row"><span class="fz-label">${say("chits")}</span>
      ${view.chits[index].map((letter, at) => html`<span key=${at} class="fz-chit"><${SymbolMark} letter=${letter} /></span>`)}</div>` : null}
    ${view.units[index].length ? html`<div class="fz-units" aria-label=${say("units")}>
      <span class="fz-label">${say("units")}</span>
      ${view.units[index].map((unit) => html`<${Unit} key=${unit.unit} unit=${unit} />`)}</div>` : null}
  </div>`;
}

function Row({ label, codes }) {
  return html`<div class="fz-row"><span class="fz-label">${label}</span>
    <div class="fz-cards">${codes.map((code) => html`<${FzCard} key=${code} code=${code} small=${true} />`)}</div></div>`;
}

// -- the center: round, belt, sealed bids, the last auction ----------------------------------------

function roundsInAll(view) {
  const belt = 8;
  return view.round + Math.floor(view.conveyor_left / belt);
}

function center(view, ctx) {
  if (view.round === 0) return html`<div class="fz fz-center"><p>${say("setting_up")}</p></div>`;
  const up = view.phase === "bid" || view.phase === "draw" || view.phase === "reveal" ? view.auction : -1;
  return html`<div class="fz fz-center">
    <div class="row fz-round-line">
      <strong>${view.phase === "end" ? say("game_over") : t("web.round", { number: view.round, rounds: roundsInAll(view) })}</strong>
      ${view.phase === "end" ? null : html`<span>${view.phase === "production" ? say("production_phase")
        : say("auction_of", { number: Math.min(view.auction + 1, 8), count: 8 })}</span>`}
      ${view.phase === "end" ? null : html`<span class="chip">${tn(key("conveyor"), view.conveyor_left)}</span>`}
    </div>
    ${view.belt.every((code) => code === "gone") ? null : html`<${Belt} belt=${view.belt} up=${up} />`}
    ${view.phase === "bid" ? html`<${SealedBids} view=${view} ctx=${ctx} />` : null}
    ${view.phase === "production" ? html`<p class="fz-production">${say("production_now", { name: ctx.names[view.current_player] })}</p>` : null}
    ${view.last_auction ? html`<${AuctionResult} view=${view} ctx=${ctx} />` : null}
    <${Legend} />
  </div>`;
}

function Belt({ belt, up }) {
  return html`<ol class="fz-belt" id="belt" aria-label=${say("belt")}>
    ${belt.map((code, slot) => {
      if (code === "gone") return html`<li key=${slot} class="fz-slot gone" title=${say("sold")}><span class="visually-hidden">${say("sold")}</span></li>`;
      const current = slot === up;
      return html`<li key=${slot} class=${`fz-slot${current ? " up" : ""}`} aria-current=${current ? "true" : null}>
        ${current ? html`<span class="fz-up-label" id="up-for-auction">${say("up_for_auction")}</span>` : null}
        ${code === "hidden" ? html`<${CardBack} />` : html`<${FzCard} code=${code} winner=${current} />`}
      </li>`;
    })}
  </ol>`;
}

/** While bidding: who has sealed how many cards, who is bidding; in a replay, what each sealed. */
function SealedBids({ view, ctx }) {
  return html`<ul class="fz-bids" aria-label=${say("sealed_bids")}>
    ${view.bid_sizes.map((size, index) => {
      const sealed = ctx.reveal?.[index]?.bid ?? [];
      const text = size !== null ? say("line_bid", { cards: tn("web.cards", size) })
        : view.current_player === index ? say("line_bidding")
        : view.hand_sizes[index] ? say("to_bid") : say("line_no_cards");
      return html`<li key=${index} class=${view.current_player === index ? "now" : ""}>
        <strong>${ctx.names[index]}</strong> ${text}
        ${sealed.length ? html`<span class="fz-cards">${sealed.map((code) => html`<${FzCard} key=${code} code=${code} small=${true} />`)}</span>` : null}
      </li>`;
    })}
  </ul>`;
}

const power = (codes) => codes.reduce((sum, code) => sum + info(code).zap, 0);

/** The seat that won a tie, if the last auction was one: the first tied bidder from the Chief. */
function tieOf(view) {
  const result = view.last_auction;
  const best = power(result.bids[result.winner]);
  const tied = result.bids.filter((bid) => bid !== null && power(bid) === best).length > 1;
  return tied ? (view.chief + view.players - 1) % view.players : null;
}

/** Where the last auction's result and the legend come folded (the CSS's phone layout): the
 * belt above the dock needs the room. */
const NARROW = "(max-width: 600px)";

function AuctionResult({ view, ctx }) {
  const result = view.last_auction;
  const chief = tieOf(view);
  const number = view.phase === "bid" || view.phase === "draw" || view.phase === "reveal" ? view.auction : 8;
  return html`<details class="fz-result" id="auction-result" key=${`${view.round}-${number}`} open=${!matchMedia(NARROW).matches}
    aria-label=${say("result_title", { number })}>
    <summary><h3 class="fz-result-title">${say("result_heading", { number, name: ctx.names[result.winner], card: theCard(result.card),
      power: power(result.bids[result.winner]) })}</h3></summary>
    <div class="fz-result-body">
      <figure class="fz-won"><${FzCard} code=${result.card} winner=${true} small=${true} /><figcaption>${ctx.names[result.winner]}</figcaption></figure>
      <ul class="fz-result-bids">${result.bids.map((bid, index) => bid === null ? null : html`<li key=${index}
        class=${index === result.winner ? "winner" : ""}>
        <span class="fz-bidder">${ctx.names[index]}${index === result.winner ? html` <span class="fz-wins">${say("wins")}</span>` : null}
          <span class="fz-power"><${Zap} />${power(bid)}</span></span>
        <span class="fz-cards">${bid.map((code) => html`<${FzCard} key=${code} code=${code} small=${true} />`)}</span>
      </li>`)}</ul>
    </div>
    ${chief === null ? null : html`<p class="fz-tie">${say("tie", { chief: ctx.names[chief] })}</p>`}
  </details>`;
}

function Legend() {
  return html`<details class="fz-legend" open=${!matchMedia(NARROW).matches}>
    <summary>${say("legend_title")}</summary>
    <ul>
      <li><${Zap} /> ${say("legend_power")}</li>
      <li><span aria-hidden="true">★</span> ${say("legend_points")}</li>
      <li><${BeltIcon} /> ${say("legend_belt")}</li>
      <li><span class="fz-legend-unit tone-yellow" aria-hidden="true">+5</span> ${say("legend_unit")}</li>
      <li>${SYMBOLS.map((letter) => html`<span key=${letter} class="fz-legend-symbol"><${SymbolMark} letter=${letter} /> ${say(`symbol.${letter}`)}</span>`)}</li>
    </ul>
  </details>`;
}

// -- the hand: picking a bid, putting robots to work ------------------------------------------------

function hand(view, ctx) {
  if (ctx.mine === null) return null;
  const bids = ctx.legal.filter((action) => action.startsWith("bid "));
  const places = ctx.legal.filter((action) => action.startsWith("place "));
  const position = `${view.round}:${view.auction}:${view.phase}:${view.hand.join(" ")}:${view.placed_this_phase.join(" ")}`;
  return html`<div class="fz fz-dock">
    ${bids.length ? html`<${BidPicker} key=${position} view=${view} bids=${bids} act=${ctx.act} />`
      : ctx.legal.includes("done") ? null : html`<div class="hand" id="hand" role="group" aria-label=${t("web.hand")}>
          ${view.hand.map((code) => html`<${FzCard} key=${code} code=${code} />`)}</div>`}
    ${view.bid.length ? html`<div class="fz-row"><span class="fz-label">${say("your_bid", { power: power(view.bid) })}</span>
      <div class="fz-cards">${view.bid.map((code) => html`<${FzCard} key=${code} code=${code} small=${true} />`)}</div></div>` : null}
    ${ctx.legal.includes("done") ? html`<${Placer} key=${position} view=${view} places=${places} act=${ctx.act} />` : null}
  </div>`;
}

/** A sealed bid is any set of cards from the hand: pick them, then Bid. The button carries the move
 * only while the picked cards make a legal bid; the picks last while the position is the same. */
function BidPicker({ view, bids, act }) {
  const [picked, setPicked] = useState(() => new Set());
  const legal = new Map(bids.map((action) => [action.split(" ").slice(1).sort().join(" "), action]));
  const action = legal.get([...picked].sort().join(" ")) ?? null;
  const toggle = (code) => {
    const next = new Set(picked);
    if (next.has(code)) next.delete(code); else next.add(code);
    setPicked(next);
  };
  const [help, setHelp] = useState(false);
  const card = view.belt[view.auction];
  const shown = card && card !== "hidden" && card !== "gone";
  return html`<div class="fz-bid">
    <div class="row fz-bid-row">
      ${shown ? html`<span class="fz-for"><span class="fz-label">${say("up_for_auction")}</span> <${FzCard} code=${card} small=${true} /></span>` : null}
      <button id="bid" class="primary" disabled=${!action} data-action=${action} onClick=${() => action && act(action)}>
        ${say("bid_button")}</button>
      <span class="fz-bid-power" id="bid-power" aria-live="polite"><${Zap} />${say("bid_power", { power: power([...picked]) })}</span>
      <button type="button" class="fz-help-toggle" id="bid-help-toggle" aria-expanded=${String(help)} aria-controls="bid-help"
        aria-label=${say("bid_help_label")} title=${say("bid_help_label")} onClick=${() => setHelp(!help)}>?</button>
    </div>
    ${help ? html`<div class="fz-help" id="bid-help">${shown ? html`<p>${cardWords(card)}</p>` : null}<p>${say("bid_help")}</p></div>` : null}
    <div class="hand" id="hand" role="group" aria-label=${t("web.hand")}>
      ${view.hand.map((code) => html`<${FzCard} key=${code} code=${code} picked=${picked.has(code)} onPlay=${() => toggle(code)} />`)}
    </div>
  </div>`;
}

/** The production phase: pick a robot (or a chit) that can work, then the unit to put it on. */
function Placer({ view, places, act }) {
  const targets = new Map();
  for (const action of places) {
    const [, item, unit] = action.match(/^place (.+) on (\S+)$/);
    if (!targets.has(item)) targets.set(item, []);
    targets.get(item).push({ unit, action });
  }
  const [chosen, setChosen] = useState(null);
  const mine = view.units[view.seat];
  const itemName = (item) => (item.startsWith("chit ") ? say("chit", { symbol: say(`symbol.${item.slice(5)}`) }) : theCard(item));
  return html`<div class="fz-place" id="place">
    ${targets.size ? html`<p class="fz-label">${say("place_pick")}</p>
      <div class="hand fz-robots">${[...targets.keys()].map((item) => item.startsWith("chit ")
        ? html`<button key=${item} class=${`fz-chit${chosen === item ? " picked" : ""}`} data-pick=${item} aria-pressed=${String(chosen === item)}
            onClick=${() => setChosen(chosen === item ? null : item)}><${SymbolMark} letter=${item.slice(5)} /> ${itemName(item)}</button>`
        : html`<${FzCard} key=${item} code=${item} picked=${chosen === item} onPlay=${() => setChosen(chosen === item ? null : item)} />`)}
      </div>` : null}
    ${chosen && targets.has(chosen) ? html`<p class="fz-label">${say("place_on", { item: itemName(chosen) })}</p>
      <div class="fz-targets">${targets.get(chosen).map(({ unit, action }) => {
        const placed = mine.find((each) => each.unit === unit);
        return html`<div key=${unit} class="fz-target">
          <${FzCard} code=${unit} action=${action} onPlay=${() => act(action)} caption=${say("put_here", { item: itemName(chosen) })} />
          <span>${placed ? unitWords(placed) : ""}</span></div>`;
      })}</div>` : null}
    <div class="row"><button class="primary" id="done" data-action="done" onClick=${() => act("done")}>${say("done")}</button>
      ${view.placed_this_phase.length ? html`<span>${say("placed_on", { units: view.placed_this_phase.map(unitName).join(", ") })}</span>` : null}</div>
  </div>`;
}

function prompt(view, ctx) {
  if (ctx.legal.some((action) => action.startsWith("bid "))) {
    const card = view.belt[view.auction];
    return say("prompt_bid", { card: card && card !== "hidden" ? theCard(card) : say("the_card") });
  }
  if (ctx.legal.includes("done")) return say("prompt_place");
  return "";
}

/** The kind of decision this seat faces now, for the guide's hints (texts/guide.*.toml). */
function decision(view, ctx) {
  if (ctx.legal.some((action) => action.startsWith("bid "))) return "bid";
  if (ctx.legal.includes("done")) return "place";
  return null;
}

function handles(action) {
  return /^(bid|place) /.test(action) || action === "done";
}

// -- the log, the summaries and the sheet -------------------------------------------------------

/** Cards each seat gained between two views: won at auction (owned, units, robots put on units). */
function gains(before, after) {
  const holding = (view, seat) => [...view.owned[seat], ...view.units[seat].flatMap((unit) => [unit.unit, ...unit.robots])];
  return after.owned.map((_, seat) => {
    const left = [...holding(before, seat)];
    return holding(after, seat).filter((code) => {
      const at = left.indexOf(code);
      if (at === -1) return true;
      left.splice(at, 1);
      return false;
    });
  });
}

function describe(before, after, { names }) {
  const lines = [];
  if (!after.round) return lines;
  if (!before.round) {
    lines.push(say("log_start", { name: names[after.chief] }));
  } else {
    lines.push(...auctionLines(before, after, names));
    lines.push(...placementLines(before, after, names));
  }
  if (after.round > before.round && before.round) lines.push(say("log_round", { round: after.round }));
  if (after.round === before.round && after.auction === before.auction) {
    after.bid_sizes.forEach((size, seat) => {
      if (size !== null && before.bid_sizes[seat] === null) lines.push(say("log_bid", { name: names[seat], cards: tn("web.cards", size) }));
    });
  }
  const turned = after.belt.filter((code, slot) => code !== "hidden" && code !== "gone"
    && (after.round !== before.round || before.belt[slot] === "hidden"));
  if (turned.length) lines.push(say("log_turned", { cards: listNames(turned.map(theCard)) }));
  if (after.phase === "end" && before.phase !== "end") {
    lines.push(say("log_final", { scores: names.map((name, seat) => `${name} ${after.scores[seat]}`).join(", ") }));
  }
  return lines;
}

/** The auctions settled between two views: with the revealed bids when the view still has them. */
function auctionLines(before, after, names) {
  const sameRound = after.round === before.round;
  const settled = before.belt.map((code, slot) => ({ code, slot }))
    .filter(({ code, slot }) => code !== "gone" && (!sameRound || after.belt[slot] === "gone"));
  if (!settled.length) return [];
  const gained = gains(before, after);
  const winnerOf = (code) => gained.findIndex((cards) => cards.includes(code));
  const lines = [];
  for (const { code } of settled) {
    const result = after.last_auction;
    if (result && result.card === code) {
      const others = result.bids.map((bid, seat) => ({ bid, seat }))
        .filter(({ bid, seat }) => bid !== null && seat !== result.winner)
        .map(({ bid, seat }) => say("log_other_bid", { name: names[seat], power: power(bid) }));
      lines.push(say("log_auction", { name: names[result.winner], card: theCard(code), power: power(result.bids[result.winner]) })
        + (others.length ? say("log_others", { bids: others.join(", ") }) : "")
        + (tieOf(after) === null ? "" : ` (${say("tie", { chief: names[tieOf(after)] })})`));
    } else if (code !== "hidden" && winnerOf(code) !== -1) {
      lines.push(say("log_won", { name: names[winnerOf(code)], card: theCard(code) }));
    }
  }
  return lines;
}

function placementLines(before, after, names) {
  const lines = [];
  after.units.forEach((units, seat) => units.forEach((unit) => {
    const earlier = before.units[seat].find((each) => each.unit === unit.unit)?.robots ?? [];
    for (const item of unit.robots.slice(earlier.length)) {
      lines.push(item.startsWith("chit ")
        ? say("log_chit", { name: names[seat], symbol: say(`symbol.${item.slice(5)}`), unit: theCard(unit.unit) })
        : say("log_place", { name: names[seat], card: theCard(item), unit: theCard(unit.unit) }));
    }
  }));
  return lines;
}

function summary(before, after, { names }) {
  const scored = (after.round > before.round && before.round > 0) || (after.phase === "end" && before.phase !== "end");
  if (!scored) return null;
  const title = after.phase === "end" ? say("summary_final") : say("summary_round", { round: before.round });
  return {
    title,
    head: ["", say("col_robots"), say("col_fzzzt"), say("col_units"), t("web.total")],
    rows: names.map((name, seat) => {
      const parts = breakdown(after, seat);
      return [name, signed(parts.robotPoints), parts.fzzzts ? signed(-parts.fzzzts) : "0",
        parts.units.join("; ") || say("no_units"), after.scores[seat]];
    }),
  };
}

/** A unit in the score sheet: its code, ✓ or ✗ and its points (these two on one line), narrow
 * enough for a column per seat; its words for a screen reader and on hover. */
function SheetUnit({ unit }) {
  const { sets, points } = unitScore(unit);
  const words = unitWords(unit);
  return html`<div title=${words}><span aria-hidden="true">${unit.unit} ${sets ? "✓" : "✗"}\u00a0${signed(points)}</span>
    <span class="visually-hidden">${words}</span></div>`;
}

function sheet(view, { names }) {
  if (!view.round) return null;
  const parts = names.map((_, seat) => breakdown(view, seat));
  return html`<table class="sheet fz-sheet">
    <thead><tr><th scope="col"><span class="visually-hidden">${say("col_counted")}</span></th>${names.map((name) => html`<th scope="col">${name}</th>`)}</tr></thead>
    <tbody>
      <tr><th scope="row">${say("col_robots")}</th>${parts.map((part) => html`<td>${signed(part.robotPoints)}</td>`)}</tr>
      <tr><th scope="row">${say("col_fzzzt")}</th>${parts.map((part) => html`<td>${part.fzzzts ? signed(-part.fzzzts) : "0"}</td>`)}</tr>
      <tr><th scope="row">${say("col_units")}</th>${view.units.map((units, seat) => html`<td key=${seat}>${units.length
        ? units.map((unit) => html`<${SheetUnit} key=${unit.unit} unit=${unit} />`) : say("no_units")}</td>`)}</tr>
      <tr><th scope="row">${say("col_robot_count")}</th>${parts.map((part) => html`<td>${part.robots}</td>`)}</tr>
      <tr class="total"><th scope="row">${t("web.total")}</th>${view.scores.map((score) => html`<td><strong>${score}</strong></td>`)}</tr>
    </tbody></table>`;
}

export default { seat, center, hand, prompt, handles, decision, describe, summary, sheet, moveWords };
