// Card faces, backs and the small controls every board uses. A face is drawn from a game's own
// description of a card: a tone (colour), a rank, a symbol, so that no suit is told by colour alone.
import { html, useState } from "./ui.js";
import { t, tn } from "./i18n.js";

/**
 * One card. `face`: { tone, rank, symbol, name, detail } from the game's board module; with
 * `onPlay` it is a button (a legal move), raised and outlined; `winner` marks a trick's winner.
 */
export function Card({ face, onPlay = null, action = null, small = false, winner = false, picked = null,
  caption = null, extra = null }) {
  const classes = ["card", `tone-${face.tone}`, small ? "small" : "", onPlay ? "playable" : "",
    winner ? "winner" : "", picked ? "picked" : "", face.wide ? "wide" : ""].filter(Boolean).join(" ");
  const body = html`
    <span class="corner">${face.rank}${face.symbol ? html`<span class="symbol" aria-hidden="true">${face.symbol}</span>` : null}</span>
    ${face.center !== undefined ? html`<span class="center" aria-hidden="true">${face.center}</span>`
      : face.symbol ? html`<span class="center" aria-hidden="true">${face.symbol}</span>` : null}
    ${face.detail ? html`<span class="detail">${face.detail}</span>` : null}
    ${extra}`;
  const label = caption ? `${face.name} — ${caption}` : face.name;
  if (onPlay) {
    return html`<button class=${classes} data-action=${action} data-pick=${picked === null ? null : face.code}
      aria-pressed=${picked === null ? null : String(picked)} aria-label=${label} title=${label}
      onClick=${onPlay}>${body}</button>`;
  }
  return html`<span class=${classes} role="img" aria-label=${label} title=${label}>${body}</span>`;
}

/**
 * A trick on the table: each card above the name of who played it. A completed trick's winner
 * is marked; the card winning an open trick so far (`leading`) only outlined.
 */
export function Trick({ plays, face, names, winner = null, leading = null, id = "trick" }) {
  const mark = (seat) => (seat === winner ? " won" : seat === leading ? " leading" : "");
  return html`<div class="trick" id=${id} role="group" aria-label=${winner === null ? t("web.trick") : t("web.trick_taken")}>
    ${plays.map((play) => html`<figure key=${`${play.seat}:${play.card}`} class=${`played${mark(play.seat)}`} data-seat=${play.seat}>
      <${Card} face=${face(play.card)} winner=${play.seat === winner} />
      <figcaption>${names[play.seat]}</figcaption></figure>`)}
  </div>`;
}

/**
 * The middle of a trick game: the trick being played, and a trick just taken beside it while
 * it is held (its winner marked and `caption` saying who took it), so that neither hides the
 * other when the next card comes quickly.
 */
export function Tricks({ live, taken, face, names, caption, leading = null, earlier = null }) {
  // keyed parts: the trick being played keeps its cards (and does not deal them again) when a
  // taken trick comes or goes beside it
  const both = taken && live.length;
  return html`<div class=${both ? "tricks tricks-pair" : "tricks"}>
    ${taken ? html`<div class="trick-taken" key="taken">
      ${earlier ? html`<p class="earlier-trick">${earlier}</p>` : null}
      <${Trick} plays=${taken.cards} face=${face} names=${names} winner=${taken.winner} />
      <p class="trick-winner" id="trick-winner">${caption}</p></div>` : null}
    ${!taken || live.length ? html`<${Trick} key="live" id=${both ? "trick-live" : "trick"} plays=${live}
      face=${face} names=${names} leading=${leading} />` : null}
  </div>`;
}

/** A hand seen from behind: a few backs and the count in words. */
export function Backs({ count }) {
  const shown = Math.min(count, 8);
  return html`<span class="backs" aria-label=${tn("web.cards", count)}>
    ${Array.from({ length: shown }, (_, index) => html`<span key=${index} class="back" aria-hidden="true"></span>`)}
    <span class="count">${tn("web.cards", count)}</span></span>`;
}

/**
 * A number to choose among the legal ones, then a button: one compact control instead of a
 * button per value. `choices`: [{ value, action }]; `extra` may add a toggle (a safety bead).
 */
export function NumberChoice({ id, label, verb, choices, act }) {
  const values = choices.map((choice) => choice.value);
  const [value, setValue] = useState(values[0]);
  const chosen = choices.find((choice) => choice.value === value) ?? choices[0];
  return html`<form class="row number-choice" onSubmit=${(event) => { event.preventDefault(); act(chosen.action); }}>
    <label>${label} <select id=${id} value=${String(chosen.value)}
      onChange=${(event) => setValue(values.find((each) => String(each) === event.target.value))}>
      ${values.map((each) => html`<option value=${String(each)}>${each}</option>`)}</select></label>
    <button class="primary" type="submit" data-action=${chosen.action}>${verb}</button>
  </form>`;
}

/**
 * Stable keys for the cards of a hand: the code, and its rank among equal codes (two cards
 * coded `W` are `W` and `W#2`). A card keeps its element when another leaves the hand, so it is
 * not dealt again.
 */
export function cardKeys(codes) {
  const seen = new Map();
  return codes.map((code) => {
    const count = (seen.get(code) ?? 0) + 1;
    seen.set(code, count);
    return count === 1 ? code : `${code}#${count}`;
  });
}

/** Points won or lost, signed: "+20", "−10" (a true minus sign), "0". */
export function signed(points) {
  return points > 0 ? `+${points}` : points < 0 ? `−${-points}` : "0";
}

/** The words of a list of seats: "Ana, Bob and Eve". */
export function listNames(names) {
  if (names.length < 2) return names.join("");
  return t("web.and", { first: names.slice(0, -1).join(", "), last: names[names.length - 1] });
}
