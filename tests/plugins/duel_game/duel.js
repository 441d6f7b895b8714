// Duel's board: the trick in the middle, points at each seat, the hand.
import { html } from "../ui.js";
import { Card, cardKeys } from "../cards.js";
import { t } from "../i18n.js";

function face(code) {
  return { code, tone: "blue", rank: code.slice(1), symbol: code[0], name: code };
}

function seat(view, index) {
  return { score: view.points[index], markers: [], lines: [], handSize: view.hand_sizes[index] };
}

function center(view) {
  return html`<div class="duel-center" id="duel-trick">
    ${view.trick.map((code) => html`<${Card} key=${code} small=${true} face=${face(code)} />`)}</div>`;
}

function hand(view, ctx) {
  if (ctx.mine === null) return null;
  const can = new Set(ctx.legal);
  return html`<div class="hand" id="hand" aria-label=${t("web.hand")}>
    ${cardKeys(view.hand).map((key, index) => {
      const action = `play ${view.hand[index]}`;
      return can.has(action)
        ? html`<${Card} key=${key} face=${face(view.hand[index])} action=${action} onPlay=${() => ctx.act(action)} />`
        : html`<${Card} key=${key} face=${face(view.hand[index])} />`;
    })}</div>`;
}

function prompt() {
  return t("duel.board.prompt");
}

function handles(action) {
  return action.startsWith("play ");
}

function describe(before, after) {
  const seen = before.played.length + before.trick.length;
  const now = [...after.played, ...after.trick];
  return now.slice(seen).map((card) => t("duel.board.log_play", { card }));
}

function lastTrick() {
  return null;
}

function summary() {
  return null;
}

function sheet(view, { names }) {
  return html`<table class="sheet"><tbody>
    ${names.map((name, seat) => html`<tr key=${seat}><th scope="row">${name}</th><td>${view.points[seat]}</td></tr>`)}
  </tbody></table>`;
}

export default { seat, center, hand, prompt, handles, describe, lastTrick, summary, sheet };
