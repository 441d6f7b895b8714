// The review of a finished game in its replay: for a seat, what each decision cost in
// expectation (the server's search, from that seat's information only), the costliest first,
// each a link to the step of the replay where it was made.
import { html, useEffect, useState } from "./ui.js";
import { decimal, t, tn } from "./i18n.js";
import { api, changed, state, tell } from "./store.js";

const SHOWN = 5;
const POLL_MS = 1500;

/** The review panel of a replay; `go(index)` moves the replay to a step; the game's board
 * `module` puts moves into words (the record's notation when it cannot). */
export function ReviewPanel({ info, module, go }) {
  const words = (option) => module.moveWords?.(option.text) ?? option.text;
  const mine = info.seats.findIndex((seat) => seat.kind === "human" && seat.name === state.user);
  const [seat, setSeat] = useState(mine >= 0 ? mine : 0);
  const key = `${info.table}:${seat}`;
  state.reviews ??= {};
  const review = state.reviews[key];  // kept per seat: switching seats loses no review asked for
  const asked = review !== undefined;
  useEffect(() => {
    if (!asked || review.status === "ready") return undefined;
    let current = true;
    const ask = () => api(`/api/tables/${info.table}/review?seat=${seat}`).then((answer) => {
      if (!current) return;
      state.reviews[key] = answer;
      changed();
      if (answer.status !== "ready") timer = setTimeout(ask, POLL_MS);
    }, (error) => { if (current) { delete state.reviews[key]; changed(); tell(error.message); } });
    let timer = null;
    ask();
    return () => { current = false; clearTimeout(timer); };
  }, [asked, key]);
  const name = (index) => info.seats[index].name ?? t("web.seat", { number: index + 1 });
  const here = review?.status === "ready"
    ? review.decisions.find((decision) => decision.move === state.replay.index) : null;
  const costly = review?.status === "ready"
    ? review.decisions.filter((decision) => decision.cost > 0)
      .sort((a, b) => b.cost - a.cost || a.move - b.move).slice(0, SHOWN) : [];
  return html`<div class="review" id="review">
    <div class="row">
      <label for="review-seat">${t("web.review_seat")}</label>
      <select id="review-seat" value=${seat} onChange=${(event) => setSeat(Number(event.target.value))}>
        ${info.seats.map((_, index) => html`<option key=${index} value=${index}>${name(index)}</option>`)}
      </select>
      ${review?.status === "ready" ? null : html`<button id="review-ask" disabled=${asked}
        onClick=${() => { state.reviews[key] = { status: "computing" }; changed(); }}>${asked ? t("web.reviewing") : t("web.review")}</button>`}
    </div>
    ${review?.status === "ready" ? html`
      <p id="review-summary">${tn("web.review_summary", review.decisions.length, { cost: decimal(review.cost), name: name(seat) })}</p>
      ${here ? html`<p class="review-here" id="review-here">${here.cost > 0
        ? t("web.review_here_costly", { played: words(here.played), cost: decimal(here.cost), best: words(here.best) })
        : t("web.review_here_best", { played: words(here.played), expected: decimal(here.played.expected) })}</p>` : null}
      ${costly.length ? html`<ol class="review-costly" id="review-costly">${costly.map((decision) => html`<li key=${decision.move}>
        <button class="link" onClick=${() => go(decision.move)}>${t("web.review_move", { number: decision.move + 1 })}</button> ${t("web.review_costly", { played: words(decision.played), cost: decimal(decision.cost), best: words(decision.best) })}
      </li>`)}</ol>` : html`<p>${t("web.review_perfect")}</p>`}
      <p class="hint">${tn("web.review_hint", review.samples)}</p>` : null}
  </div>`;
}
