// Luz's board. Everyone holds their hand facing away: the other seats' cards are laid in front of
// them with their values, while the person's own cards show only their colour and the values they
// may still be (the observation's `knowledge`). Yellow, the sun, is trump in every deal.
import { html, useState } from "../ui.js";
import { Card, Tricks, signed } from "../cards.js";
import { t, tn } from "../i18n.js";
import { state } from "../store.js";

const COLOURS = { R: ["red", "♥"], Y: ["yellow", "☀"], G: ["green", "♣"], B: ["blue", "◆"], P: ["purple", "☾"] };
const TRUMP = "Y";
/** Every card of a hand makes one trick: the hand's slots, played ones included. */
function tricksPerDeal(view) {
  return view.hands[0].length;
}

/** The table of successes, as the game publishes it (GET /api/games): a person looks it up
 * before betting. One deal a column, for the deals of the game `view` shows (fewer than four
 * where an option shrinks it), or of a whole game. */
function scoring(view) {
  const { success, miss_per_trick: missPerTrick } = state.games.find((game) => game.name === "luz").scoring;
  const deals = view?.deals ?? success.plain.length;
  return { plain: success.plain.slice(0, deals), bead: success.bead.slice(0, deals), missPerTrick, deals };
}

function colourName(letter) {
  return t(`luz.board.colour.${COLOURS[letter][0]}`);
}

/** The colour as it qualifies "card": French makes it agree ("une carte verte"). */
function cardColour(letter) {
  return t(`luz.board.card_colour.${COLOURS[letter][0]}`);
}

/** "the yellow 7" in words; a hidden card ("Y?") is "a yellow card". */
function cardName(code) {
  const value = code.slice(1);
  if (value === "?") return t("luz.board.hidden_card", { card_colour: cardColour(code[0]) });
  return t("luz.board.card", { colour: colourName(code[0]), value });
}

function face(code) {
  const [tone, symbol] = COLOURS[code[0]];
  return { code, tone, rank: code.slice(1), symbol, name: cardName(code) };
}

/** A bet as written on the table: "3", or "3+" with the safety bead. */
function betText(bet) {
  return bet ? `${bet[0]}${bet[1] ? "+" : ""}` : "–";
}

function betWords(bet) {
  return bet[1] ? t("luz.board.bet_with_bead", { bet: bet[0] }) : String(bet[0]);
}

/** A move of the record's notation as words for a sentence: "playing the yellow 7". */
function moveWords(action) {
  const [verb, argument] = action.split(" ");
  if (verb === "play") return t("luz.board.move_play", { card: cardName(argument) });
  if (verb === "bet") {
    const bead = argument.endsWith("+");
    return t("luz.board.move_bet", { bet: betWords([Number(argument.replace("+", "")), bead]) });
  }
  return null;
}

/** Which play of a trick wins it: the highest yellow, else the highest card of the colour led. */
function winningPlay(plays) {
  const yellows = plays.filter((play) => play.card[0] === TRUMP);
  const pool = yellows.length ? yellows : plays.filter((play) => play.card[0] === plays[0].card[0]);
  return pool.reduce((best, play) => (Number(play.card.slice(1)) > Number(best.card.slice(1)) ? play : best));
}

/** The cards of seat `index` as this page may show them: a replay shows every value. */
function shownHand(view, index, ctx) {
  if (ctx.reveal) {
    const witness = ctx.reveal.find((observation, seat) => seat !== index && observation?.hands?.[index]);
    if (witness) return witness.hands[index];
  }
  return view.hands?.[index] ?? [];
}

/** A deal's bets and plays in one shape, whether it is the one being played or a finished one. */
function dealRecord(view, index) {
  const past = view.past_deals?.[index];
  if (past) return { bets: past.bets, tricks: past.played, trick: [], finished: past };
  if (index === view.deal_index) {
    return { bets: view.bets ?? [], tricks: view.completed_tricks ?? [], trick: view.trick ?? [], finished: null };
  }
  return { bets: [], tricks: [], trick: [], finished: null };
}

function dealPlays(record) {
  const done = record.tricks.flatMap((trick, number) => trick.plays.map((play, order) =>
    ({ ...play, trick: number, closes: order === trick.plays.length - 1 ? trick : null })));
  return [...done, ...record.trick.map((play) => ({ ...play, trick: record.tricks.length, closes: null }))];
}

function lastTrick(view) {
  const done = view.completed_tricks?.length ? view.completed_tricks
    : view.past_deals?.length ? view.past_deals[view.past_deals.length - 1].played : [];
  if (!done.length) return null;
  const trick = done[done.length - 1];
  return { cards: trick.plays.map((play) => ({ seat: play.seat, card: play.card })), winner: trick.winner };
}

function describe(before, after, { names }) {
  const lines = [];
  const first = before.deal_index ?? 0;
  const last = Math.min(after.deal_index ?? 0, scoring(after).deals - 1);
  for (let index = first; index <= last; index++) {
    const was = index === first ? dealRecord(before, index) : dealRecord({}, index);
    const now = dealRecord(after, index);
    if (index > first) {
      const opener = now.finished ? now.finished.first_player : after.first_player;
      lines.push(t("luz.board.log_deal_start", { number: index + 1, deals: scoring(after).deals, name: names[opener] }));
    }
    const players = names.length;
    const opener = now.finished ? now.finished.first_player : after.first_player;
    for (let step = 0; step < players; step++) {
      const seat = (opener + step) % players;
      const bet = now.bets[seat];
      if (bet && !was.bets[seat]) {
        lines.push(bet[1] ? t("luz.board.log_bet_bead", { name: names[seat], bet: bet[0] })
          : t("luz.board.log_bet", { name: names[seat], bet: bet[0] }));
      }
    }
    for (const play of dealPlays(now).slice(dealPlays(was).length)) {
      const words = { name: names[play.seat], card: cardName(play.card) };
      const winner = play.closes?.winner;
      if (winner === undefined) {
        lines.push(t("luz.board.log_play", words));
      } else if (winner === play.seat) {
        lines.push(t("luz.board.log_play_wins", words));
      } else {
        lines.push(t("luz.board.log_play", words));
        const best = play.closes.plays.find((each) => each.seat === winner);
        lines.push(t("luz.board.log_wins", { name: names[winner], card: cardName(best.card) }));
      }
    }
    if (now.finished && !was.finished) {
      lines.push(t("luz.board.log_deal_end", { number: index + 1,
        points: now.finished.points.map((points, seat) => `${names[seat]} ${signed(points)}`).join(", ") }));
    }
  }
  return lines;
}

/** How a finished bet went, in words: made, or how many tricks off. */
function outcome(bet, safety, tricks) {
  if (tricks === bet || (safety && tricks === bet + 1)) return t("luz.board.made");
  return t("luz.board.missed", { count: Math.abs(tricks - bet) });
}

function summary(before, after, { names }) {
  const count = after.past_deals?.length ?? 0;
  if (count <= (before.past_deals?.length ?? 0)) return null;
  const deal = after.past_deals[count - 1];
  return {
    title: t("luz.board.summary", { number: deal.deal_number, deals: scoring(after).deals }),
    head: ["", t("luz.board.bet"), t("web.tricks"), t("luz.board.outcome"), t("web.points_column"), t("web.total")],
    rows: names.map((name, seat) => {
      const [bet, safety] = deal.bets[seat];
      return [name, betText(deal.bets[seat]), deal.tricks[seat], outcome(bet, safety, deal.tricks[seat]),
        signed(deal.points[seat]), after.scores[seat]];
    }),
  };
}

/** Where a seat stands against its bet during the tricks. */
function progress(bet, tricks) {
  const [wanted, safety] = bet;
  if (tricks < wanted) return tn("luz.board.needs", wanted - tricks);
  if (tricks === wanted || (safety && tricks === wanted + 1)) return t("luz.board.on_target");
  return tn("luz.board.too_many", tricks - wanted - safety);
}

function SeatCards({ cards, owner, hidden }) {
  return html`<div class="luz-seat-cards" aria-label=${hidden ? t("luz.board.cards_hidden_of", { name: owner })
    : t("luz.board.cards_of", { name: owner })}>
    ${cards.map((code, slot) => code === null ? null
      : html`<${Card} key=${slot} small=${true} face=${face(code)} />`)}
  </div>`;
}

function seat(view, index, ctx) {
  const markers = view.first_player === index && view.phase !== "end"
    ? [{ key: "first", text: t("luz.board.first_marker"), title: t("luz.board.first_player") }] : [];
  const bet = view.bets?.[index] ?? null;
  // once the game is over the last deal's bets are in the score sheet, not on the plates
  const lines = view.phase === "end" ? [] : [
    t("web.labelled", { label: t("luz.board.bet"), value: bet ? betWords(bet) : "–" }),
    t("web.labelled", { label: t("web.tricks"), value: view.tricks_won?.[index] ?? 0 }),
  ];
  if (view.phase === "play" && bet) lines.push(progress(bet, view.tricks_won[index]));
  const cards = shownHand(view, index, ctx);
  const area = index === ctx.mine || !cards.some((code) => code !== null) ? null
    : html`<${SeatCards} cards=${cards} owner=${ctx.names[index]} hidden=${cards.some((code) => code?.endsWith("?"))} />`;
  return { score: view.scores?.[index], markers, lines, area };
}

function center(view, ctx) {
  const shown = ctx.shownTrick;
  const playing = view.phase === "play";
  const live = view.trick ?? [];
  const earlierDeal = shown && !view.completed_tricks?.length && view.deal_index > 0;
  // the trick being played, or the one just taken while it is held and the next has no card yet
  const trickNumber = Math.min((view.completed_tricks?.length ?? 0) + (playing && (live.length || !shown) ? 1 : 0), tricksPerDeal(view));
  const leading = !ctx.showingLast && live.length > 1 && live.length < view.players ? winningPlay(live) : null;
  return html`<div class="luz-center">
    <div class="row round-line">
      <strong>${view.phase === "end" ? t("luz.board.game_over") : t("luz.board.deal", { number: view.deal_index + 1, deals: scoring(view).deals })}</strong>
      ${playing && trickNumber ? html`<span>${t("luz.board.trick_number", { number: trickNumber, tricks: tricksPerDeal(view) })}</span>` : null}
    </div>
    <p class="luz-trump" id="trump">
      <${Card} face=${{ code: TRUMP, tone: "yellow", rank: "", symbol: COLOURS[TRUMP][1],
        name: t("luz.board.trump_card") }} />
      <span><strong>${t("luz.board.trump")}</strong> ${t("luz.board.trump_rule")}</span>
    </p>
    ${view.phase === "bet" ? html`<p class="luz-note">${t("luz.board.betting", { name: ctx.names[view.current_player] ?? "" })}</p>` : null}
    <${Tricks} live=${ctx.showingLast ? [] : live} taken=${shown} face=${face} names=${ctx.names} leading=${leading?.seat}
      caption=${shown ? t("luz.board.wins_trick", { name: ctx.names[shown.winner],
        card: cardName(shown.cards.find((play) => play.seat === shown.winner).card) }) : null}
      earlier=${earlierDeal ? t("luz.board.last_trick_of", { number: view.deal_index }) : null} />
    ${leading ? html`<p class="luz-note" id="trick-leading">${t("luz.board.winning_so_far", { name: ctx.names[leading.seat],
        card: cardName(leading.card) })}</p>`
      : playing && !live.length && !shown ? html`<p class="luz-note">${t("luz.board.leads", { name: ctx.names[view.current_player] ?? "" })}</p>` : null}
  </div>`;
}

/** What a bet of `bet` would score this deal, with or without the bead, in words. */
function betHint(bet, bead, dealIndex) {
  const deal = Math.min(dealIndex, scoring().deals - 1);
  return bead
    ? t("luz.board.bet_hint_bead", { low: bet, high: bet + 1, points: scoring().bead[deal], fail: scoring().missPerTrick })
    : t("luz.board.bet_hint", { bet, points: scoring().plain[deal], fail: scoring().missPerTrick });
}

/** The bet: a number among the legal ones, the safety bead as a toggle, then one button. */
function BetChoice({ legal, act, dealIndex }) {
  const offers = new Map();
  for (const action of legal) {
    const match = action.match(/^bet (\d+)(\+?)$/);
    if (!match) continue;
    const value = Number(match[1]);
    offers.set(value, { ...offers.get(value), [match[2] ? "bead" : "plain"]: action });
  }
  const values = [...offers.keys()].sort((a, b) => a - b);
  const [value, setValue] = useState(values[0]);
  const [bead, setBead] = useState(false);
  const offer = offers.get(value) ?? offers.get(values[0]);
  const chosen = offers.has(value) ? value : values[0];
  const withBead = bead && Boolean(offer.bead);
  const action = withBead ? offer.bead : offer.plain ?? offer.bead;
  return html`<form class="row number-choice luz-bet" onSubmit=${(event) => { event.preventDefault(); act(action); }}>
    <label>${t("luz.board.bet_label")} <select id="bet-value" value=${String(chosen)}
      onChange=${(event) => setValue(Number(event.target.value))}>
      ${values.map((each) => html`<option key=${each} value=${String(each)}>${each}</option>`)}</select></label>
    <label class="luz-bead-toggle"><input type="checkbox" id="bet-bead" checked=${withBead} disabled=${!offer.bead}
      onChange=${(event) => setBead(event.target.checked)} />
      <span class="luz-bead" aria-hidden="true">+</span> ${t("luz.board.bead_toggle")}</label>
    <button class="primary" type="submit" id="bet-submit" data-action=${action}>
      ${t("luz.board.bet_button", { bet: withBead ? t("luz.board.bet_with_bead", { bet: chosen }) : chosen })}</button>
    <p class="hint luz-bet-hint">${betHint(chosen, withBead, dealIndex)}</p>
  </form>`;
}

/** One of the person's own cards: its colour, and the values it may still be. */
function ownFace(code, possible, slot) {
  const [tone, symbol] = COLOURS[code[0]];
  const values = possible ?? [];
  const known = values.length === 1;
  const list = values.join(" ");
  const name = known ? t("luz.board.own_known", { position: slot, card: cardName(`${code[0]}${values[0]}`) })
    : t("luz.board.own_card", { position: slot, card_colour: cardColour(code[0]), values: list });
  return { code, tone, symbol, rank: known ? String(values[0]) : "?", center: known ? symbol : list, name,
    detail: known ? t("luz.board.known") : null };
}

function hand(view, ctx) {
  if (ctx.mine === null) return null;
  const can = new Set(ctx.legal);
  const betting = ctx.legal.some((action) => action.startsWith("bet "));
  const cards = view.hands?.[ctx.mine] ?? [];
  return html`<div class="luz-own">
    ${betting ? html`<${BetChoice} key=${`bet-${view.deal_index}`} legal=${ctx.legal} act=${ctx.act} dealIndex=${view.deal_index} />` : null}
    <div class="hand" id="hand" role="group" aria-label=${t("web.hand")}>
      ${cards.map((code, slot) => {
        if (code === null) return null;
        const cardFace = ownFace(code, view.knowledge?.[slot], slot);
        const action = `play ${slot}`;
        return can.has(action)
          ? html`<${Card} key=${slot} face=${cardFace} action=${action} onPlay=${() => ctx.act(action)} />`
          : html`<${Card} key=${slot} face=${cardFace} />`;
      })}
    </div>
    ${cards.some((code) => code !== null) ? html`<p class="hint">${t("luz.board.own_hint")}</p>` : null}
  </div>`;
}

function prompt(view, ctx) {
  if (ctx.legal.some((action) => action.startsWith("bet "))) {
    return t("luz.board.prompt_bet", { tricks: tricksPerDeal(view) });
  }
  const trick = view.trick ?? [];
  if (!trick.length) return t("luz.board.prompt_lead");
  const led = trick[0].card[0];
  const holding = (view.hands?.[ctx.mine] ?? []).some((code) => code?.[0] === led);
  const words = { colour: colourName(led), symbol: COLOURS[led][1] };
  return holding ? t("luz.board.prompt_follow", words) : t("luz.board.prompt_free", words);
}

/** The kind of decision this seat faces now, for the guide's hints (texts/guide.*.toml). */
function decision(view, ctx) {
  if (ctx.legal.some((action) => action.startsWith("bet "))) return "bet";
  const trick = view.trick ?? [];
  if (!trick.length) return "lead";
  const led = trick[0].card[0];
  if ((view.hands?.[ctx.mine] ?? []).some((code) => code?.[0] === led)) return "follow";
  return "free";
}

function handles(action) {
  return /^(play|bet) /.test(action);
}

function sheet(view, { names }) {
  const successes = scoring(view);
  const current = Math.min(view.deal_index ?? 0, successes.deals - 1);
  return html`<div class="luz-sheet">
    <table class="sheet">
      <thead><tr><th scope="col">${t("luz.board.deal_column")}</th>${names.map((name) => html`<th scope="col">${name}</th>`)}</tr></thead>
      <tbody>
        ${(view.past_deals ?? []).map((deal) => html`<tr key=${deal.deal_number}><th scope="row">${deal.deal_number}</th>
          ${deal.points.map((points, seat) => html`<td title=${t("luz.board.sheet_cell_title")}>
            <span>${betText(deal.bets[seat])} / ${deal.tricks[seat]}</span> <span>→ ${signed(points)}</span></td>`)}</tr>`)}
        <tr class="total"><th scope="row">${t("web.total")}</th>${(view.scores ?? []).map((score) => html`<td><strong>${score}</strong></td>`)}</tr>
      </tbody></table>
    <p class="hint sheet-key">${t("luz.board.sheet_key")}</p>
    <table class="sheet luz-successes" id="successes">
      <caption>${t("luz.board.successes")}</caption>
      <thead><tr><th scope="col"><span class="visually-hidden">${t("luz.board.outcome_column")}</span></th>${successes.plain.map((_, deal) => html`<th scope="col"
        class=${deal === current && view.phase !== "end" ? "luz-now" : ""}>${t("luz.board.deal_short", { number: deal + 1 })}</th>`)}</tr></thead>
      <tbody>
        <tr><th scope="row">${t("luz.board.made_plain")}</th>${successes.plain.map((points) => html`<td>+${points}</td>`)}</tr>
        <tr><th scope="row">${t("luz.board.made_bead")}</th>${successes.bead.map((points) => html`<td>+${points}</td>`)}</tr>
        <tr><th scope="row">${t("luz.board.missed_row")}</th><td colspan=${successes.deals}>${t("luz.board.missed_points", { points: successes.missPerTrick })}</td></tr>
      </tbody>
    </table>
  </div>`;
}

export default { seat, center, hand, prompt, handles, decision, describe, lastTrick, summary, sheet, moveWords };
