// Wizard's board: the trump, the trick in the middle, bids and tricks at each seat, the hand.
import { html } from "../ui.js";
import { Card, NumberChoice, Tricks, cardKeys, signed } from "../cards.js";
import { t, tn } from "../i18n.js";

const SUITS = { B: ["blue", "◆"], R: ["red", "♥"], G: ["green", "♣"], Y: ["yellow", "★"] };

function face(code) {
  if (code === "W") return { code, tone: "wizard", rank: "W", center: "✦", name: t("wizard.board.wizard"), detail: t("wizard.board.wizard") };
  if (code === "J") return { code, tone: "jester", rank: "J", center: "☺", name: t("wizard.board.jester"), detail: t("wizard.board.jester") };
  const [tone, symbol] = SUITS[code[0]];
  const rank = code.slice(1);
  return { code, tone, rank, symbol, name: cardName(code) };
}

function suitName(letter) {
  return t(`wizard.suit.${SUITS[letter][0]}`);
}

/** The trump in words: a suit, no trump ("-"), or not chosen yet (null). */
function trumpWords(view) {
  if (view.trump === null) return view.trump_card ? t("wizard.board.trump_to_choose") : "";
  if (view.trump === "-") return t("web.no_trump");
  return `${suitName(view.trump)} ${SUITS[view.trump][1]}`;
}

/** A card as a sentence names it: "the blue 7", "a Wizard" (there are four of each). */
function cardName(code) {
  if (code === "W") return t("wizard.board.a_wizard");
  if (code === "J") return t("wizard.board.a_jester");
  return t("wizard.board.card", { rank: code.slice(1), suit: suitName(code[0]) });
}

/** The cards of the round so far, trick by trick, each with who played it. */
function plays(tricks, current, leader, players) {
  const done = tricks.map((trick, number) => trick.cards.map((card, order) =>
    ({ seat: (trick.leader + order) % players, card, trick: number, winner: trick.winner })));
  const open = (current ?? []).map((card, order) => ({ seat: (leader + order) % players, card, trick: tricks.length }));
  return [...done.flat(), ...open];
}

function roundPlays(view) {
  return plays(view.completed_tricks, view.trick, view.leader, view.players);
}

function lastTrick(view) {
  const done = view.completed_tricks.length ? view.completed_tricks
    : view.past_rounds.length ? view.past_rounds[view.past_rounds.length - 1].played : [];
  if (!done.length) return null;
  const trick = done[done.length - 1];
  return { cards: trick.cards.map((card, order) => ({ seat: (trick.leader + order) % view.players, card })),
    winner: trick.winner };
}

/** A move of the record's notation as words for a sentence: "playing the blue 7". */
function moveWords(action) {
  const [verb, argument] = action.split(" ");
  if (verb === "play") return t("wizard.board.move_play", { card: cardName(argument) });
  if (verb === "bid") return t("wizard.board.move_bid", { bid: argument });
  if (verb === "trump") return t("wizard.board.move_trump", { suit: suitName(argument) });
  return null;
}

function describe(before, after, { names }) {
  const lines = [];
  const newRound = after.round_index !== before.round_index;
  const finished = newRound ? after.past_rounds[after.past_rounds.length - 1] : null;
  after.bids.forEach((bid, seat) => {
    if (!newRound && bid !== null && bid !== before.bids[seat]) lines.push(t("wizard.board.log_bid", { name: names[seat], bid }));
  });
  if (!newRound && after.trump !== before.trump && after.trump && after.trump_card === "W") {
    lines.push(t("wizard.board.log_trump", { name: names[after.dealer], suit: suitName(after.trump) }));
  }
  const seen = roundPlays(before);
  const now = finished ? plays(finished.played, [], 0, after.players) : roundPlays(after);
  for (const play of now.slice(seen.length)) {
    lines.push(t("wizard.board.log_play", { name: names[play.seat], card: cardName(play.card) }));
    const trick = finished ? finished.played[play.trick] : after.completed_tricks[play.trick];
    if (trick && trick.cards.length === after.players && play === now.filter((each) => each.trick === play.trick).at(-1)) {
      lines.push(t("wizard.board.log_wins", { name: names[trick.winner] }));
    }
  }
  if (finished) {
    lines.push(t("wizard.board.log_round_end", { number: finished.round_number,
      points: finished.points.map((points, seat) => `${names[seat]} ${signed(points)}`).join(", ") }));
  }
  return lines;
}

function summary(before, after, { names }) {
  if (after.past_rounds.length <= before.past_rounds.length) return null;
  const round = after.past_rounds[after.past_rounds.length - 1];
  return {
    title: t("wizard.board.summary", { number: round.round_number }),
    head: ["", t("web.bids"), t("web.tricks"), t("web.points_column"), t("web.total")],
    rows: names.map((name, seat) => [name, round.bids[seat], round.tricks[seat], signed(round.points[seat]), after.scores[seat]]),
  };
}

function seat(view, index, ctx) {
  const markers = view.dealer === index ? [{ key: "dealer", text: "D", title: t("web.dealer") }] : [];
  // once the game is over, the last round's bids and tricks rather than an empty new round
  const round = view.phase === "end" && view.past_rounds.length ? view.past_rounds.at(-1) : null;
  const bid = round ? round.bids[index] : view.bids[index];
  const tricks = round ? round.tricks[index] : view.tricks_won[index];
  const shown = ctx.reveal?.[index]?.hand;
  return {
    score: view.scores[index],
    markers,
    lines: [t("web.labelled", { label: t("web.bids"), value: bid ?? "–" }),
      t("web.labelled", { label: t("web.tricks"), value: tricks })],
    handSize: shown ? undefined : view.hand_sizes[index],
    area: shown ? html`<div class="hand revealed" aria-label=${t("web.hand_of", { name: ctx.names[index] })}>
      ${cardKeys(shown).map((key, position) => html`<${Card} key=${key} small=${true} face=${face(shown[position])} />`)}</div>` : null,
  };
}

function center(view, ctx) {
  const shown = ctx.shownTrick;
  const current = view.trick.map((card, order) => ({ seat: (view.leader + order) % view.players, card }));
  // a trick shown before any of this round's is the last one of the round before
  const earlier = shown && !view.completed_tricks.length ? view.past_rounds.at(-1) : null;
  return html`<div class="wizard-center">
    <div class="row round-line">
      <strong>${t("web.round", { number: Math.min(view.round_index + 1, view.rounds), rounds: view.rounds })}</strong>
      <span class="trump">${t("web.label", { label: t("web.trump") })} ${view.trump_card ? html`<${Card} small=${true} face=${face(view.trump_card)} />` : null}
        <strong>${trumpWords(view)}</strong></span>
    </div>
    <${Tricks} live=${ctx.showingLast ? [] : current} taken=${shown} face=${face} names=${ctx.names}
      caption=${shown ? t("wizard.board.wins_trick", { name: ctx.names[shown.winner] }) : null}
      earlier=${earlier ? t("wizard.board.last_trick_of_round", { number: earlier.round_number }) : null} />
  </div>`;
}

function hand(view, ctx) {
  if (ctx.mine === null) return null;
  const can = new Set(ctx.legal);
  const bids = ctx.legal.filter((action) => action.startsWith("bid ")).map((action) => ({ value: Number(action.slice(4)), action }));
  const trumps = ctx.legal.filter((action) => action.startsWith("trump "));
  return html`
    ${bids.length ? html`<${NumberChoice} key=${`bid-${ctx.seq}`} id="bid-value" label=${t("wizard.board.bid_label")}
      verb=${t("web.verb.bid")} choices=${bids} act=${ctx.act} />` : null}
    ${trumps.length ? html`<div class="row">${trumps.map((action) => html`<button class="primary" key=${action}
      data-action=${action} onClick=${() => ctx.act(action)}>${SUITS[action.slice(6)][1]} ${suitName(action.slice(6))}</button>`)}</div>` : null}
    <div class="hand" id="hand" role="group" aria-label=${t("web.hand")}>
      ${cardKeys(view.hand).map((key, index) => {
        const code = view.hand[index];
        const action = `play ${code}`;
        return can.has(action)
          ? html`<${Card} key=${key} face=${face(code)} action=${action} onPlay=${() => ctx.act(action)} />`
          : html`<${Card} key=${key} face=${face(code)} />`;
      })}
    </div>`;
}

function prompt(view, ctx) {
  if (ctx.legal.some((action) => action.startsWith("bid "))) return tn("wizard.board.prompt_bid", view.hand.length);
  if (ctx.legal.some((action) => action.startsWith("trump "))) return t("wizard.board.prompt_trump");
  if (view.trick.length) {
    const led = view.trick.find((card) => card !== "W" && card !== "J");
    if (led) return t("wizard.board.prompt_follow", { suit: suitName(led[0]), symbol: SUITS[led[0]][1] });
  }
  return t("wizard.board.prompt_lead");
}

/** The kind of decision this seat faces now, for the guide's hints (texts/guide.*.toml). */
function decision(view, ctx) {
  if (ctx.legal.some((action) => action.startsWith("bid "))) return "bid";
  if (ctx.legal.some((action) => action.startsWith("trump "))) return "trump";
  if (!view.trick.length) return "lead";
  const first = view.trick.find((card) => card !== "J");  // the suit led, unless a Wizard came first
  if (first && first !== "W") return "follow";
  return "free";
}

function handles(action) {
  return /^(play|bid|trump) /.test(action);
}

function sheet(view, { names }) {
  return html`<table class="sheet">
    <thead><tr><th scope="col">${t("web.round_column")}</th>${names.map((name) => html`<th scope="col">${name}</th>`)}</tr></thead>
    <tbody>
      ${view.past_rounds.map((round) => html`<tr key=${round.round_number}><th scope="row">${round.round_number}</th>
        ${round.points.map((points, seat) => html`<td title=${t("wizard.board.sheet_cell_title")}>${round.bids[seat]}/${round.tricks[seat]} → ${signed(points)}</td>`)}</tr>`)}
      <tr class="total"><th scope="row">${t("web.total")}</th>${view.scores.map((score) => html`<td><strong>${score}</strong></td>`)}</tr>
    </tbody></table>
    <p class="hint sheet-key">${t("wizard.board.sheet_key")}</p>`;
}

export default { seat, center, hand, prompt, handles, decision, describe, lastTrick, summary, sheet, moveWords };
