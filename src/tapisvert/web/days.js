// Games over days: how long a clock gives and how long is left, in words; the lobby's list of
// the tables over days that wait for this person ("Your turn") and those that wait for others;
// and a word at the top of the page when a move makes it their turn while they are here.
import { html, useEffect, useState } from "./ui.js";
import { t, tn } from "./i18n.js";
import { frameHandlers, state, tell, changed } from "./store.js";
import { useFetched } from "./community.js";

/** A clock of an hour or more a move makes a table played over days (as the server decides). */
export const DAYS_CLOCK = 3600;

/** A duration in words, its two largest units: "2 days 4 h", "23 h 12 min", "45 s". */
export function duration(seconds) {
  const left = Math.max(0, Math.floor(seconds));
  const days = Math.floor(left / 86400), hours = Math.floor((left % 86400) / 3600);
  const minutes = Math.floor((left % 3600) / 60);
  if (days) return [tn("web.span.days", days), hours ? tn("web.span.hours", hours) : ""].join(" ").trim();
  if (hours) return [tn("web.span.hours", hours), minutes ? tn("web.span.minutes", minutes) : ""].join(" ").trim();
  if (minutes) return tn("web.span.minutes", minutes);
  return tn("web.span.seconds", left);
}

/** A table's clock as a chip says it: "30 s per move", "1 day a move". */
export function clockWords(clock) {
  return clock >= DAYS_CLOCK ? t("web.per_move_over_days", { span: duration(clock) }) : tn("web.seconds_per_move", clock);
}

let told = 0;  // your_turn frames heard: the list asks the server again after each
frameHandlers.your_turn = (frame) => {
  told += 1;
  if (location.hash !== `#table=${frame.table}`) {
    tell(t("web.your_turn_told", { game: t(`${frame.game}.name`), table: frame.table,
      left: duration(frame.deadline - Date.now() / 1000) }), "info");
  }
  changed();
};

/** The time left on a clock, counted down each second. */
export function TimeLeft({ deadline }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return html`<span class="time-left">${t("web.time_left", { left: duration(deadline - now / 1000) })}</span>`;
}

function Line({ row, mine }) {
  return html`<li key=${row.table} class=${mine ? "waiting-for-me" : ""}>
    <a href=${`#table=${row.table}`}><strong>${t(`${row.game}.name`)}</strong> · ${t("web.table_number", { table: row.table })}</a>
    <span class="hint">${row.players.join(", ")}</span>
    ${mine ? html`<${TimeLeft} deadline=${row.deadline} />`
      : html`<span class="hint">${row.to_act ? t("web.waiting_for", { name: row.to_act }) : t("web.bot_to_play")}</span>`}
  </li>`;
}

/** The person's games over days: their turn first, with the time left; hidden when they have
 * none (a guest has none: they may not sit at a table over days for long). */
export function GamesOverDays() {
  return state.guest ? null : html`<${TurnLists} />`;
}

function TurnLists() {
  const [games] = useFetched(`/api/turns?heard=${told}`, 60000);
  if (!games || (!games.your_turn.length && !games.waiting.length)) return null;
  return html`<section class="panel" id="games-over-days" aria-labelledby="your-turn-heading">
    <h2 class="small" id="your-turn-heading">${t("web.over_days_heading")}</h2>
    ${games.your_turn.length ? html`<ul class="tables over-days">${games.your_turn.map((row) =>
      html`<${Line} key=${row.table} row=${row} mine=${true} />`)}</ul>`
      : html`<p class="hint">${t("web.no_turn_waiting")}</p>`}
    ${games.waiting.length ? html`<details id="waiting-over-days"><summary>${tn("web.waiting_games", games.waiting.length)}</summary>
      <ul class="tables over-days">${games.waiting.map((row) => html`<${Line} key=${row.table} row=${row} mine=${false} />`)}</ul>
    </details>` : null}
  </section>`;
}
