// Tournaments: the list (to come, under way, just over), a form to make one, and one
// tournament's page — who registered, each round's tables to watch, the standings, the winner,
// its chat, and for moderators a way to cancel it.
import { html, useEffect, useState } from "./ui.js";
import { t } from "./i18n.js";
import { api, send, state, tell, tournamentLog } from "./store.js";
import { Loading, PlayerLink, useFetched, when } from "./community.js";
import { ChatPanel } from "./chat.js";

const FORMATS = ["swiss", "knockout", "round_robin"];
const LEVELS = ["random", "easy", "medium", "hard"];
const REFRESH = 5000;

export function TournamentsPage() {
  const [list, error] = useFetched("/api/tournaments", REFRESH);
  return html`<section class="panel tournaments" id="tournaments" aria-labelledby="tournaments-heading">
    <div class="row"><a class="button" href="#" id="back">${t("web.back")}</a>
      <h1 id="tournaments-heading">${t("web.tournaments")}</h1></div>
    ${!list ? html`<p role=${error ? "alert" : "status"}>${error ?? t("web.loading")}</p>`
      : list.length ? html`<div class="scroll"><table class="sheet listing" id="tournament-list">
        <thead><tr><th scope="col">${t("web.tournament")}</th><th scope="col">${t("web.game")}</th>
          <th scope="col">${t("web.tournament_format")}</th><th scope="col">${t("web.tournament_starts")}</th>
          <th scope="col">${t("web.tournament_status")}</th></tr></thead>
        <tbody>${list.map((row) => html`<tr key=${row.tournament} data-tournament=${row.tournament}>
          <th scope="row"><a href=${`#tournament=${row.tournament}`}>${row.name}</a></th>
          <td>${t(`${row.game}.name`)}</td><td>${t(`web.format.${row.format}`)}</td>
          <td>${when(row.starts_at)}</td><td>${t(`web.tournament_state.${row.status}`)}</td></tr>`)}</tbody>
      </table></div>` : html`<p>${t("web.no_tournaments")}</p>`}
    ${state.token && !state.guest ? html`<${NewTournament} />` : html`<p class="hint">${t("web.tournaments_accounts")}</p>`}
  </section>`;
}

/** In the lobby: the tournaments to come and under way, each a link to its page. */
export function UpcomingTournaments() {
  const [list] = useFetched("/api/tournaments", 30000);
  const live = (list ?? []).filter((row) => ["registering", "running"].includes(row.status));
  return html`<section class="panel" id="upcoming-tournaments" aria-labelledby="upcoming-heading">
    <h2 class="small" id="upcoming-heading"><a href="#tournaments">${t("web.tournaments")}</a></h2>
    ${live.length ? html`<ul class="counts">${live.map((row) => html`<li key=${row.tournament}>
      <a href=${`#tournament=${row.tournament}`}>${row.name}</a> — ${t(`${row.game}.name`)},
      ${row.status === "registering" ? when(row.starts_at) : t("web.tournament_state.running")}</li>`)}</ul>`
      : html`<p class="hint">${t("web.no_upcoming_tournaments")}</p>`}
  </section>`;
}

/** The form of a new tournament: the game, its table size, the format and its rounds, when
 * it starts, and how a field that does not divide into tables is filled. */
function NewTournament() {
  const [game, setGame] = useState(state.games[0].name);
  const spec = state.games.find((each) => each.name === game);
  const [form, setForm] = useState({ name: "", size: 4, format: "swiss", rounds: 3, advance: 2, fill: "bots", level: "easy", start: "" });
  const set = (key) => (event) => setForm({ ...form, [key]: event.target.value });
  const submit = async (event) => {
    event.preventDefault();
    try {
      const made = await api("/api/tournaments", {
        name: form.name.trim(), game, table_size: Number(form.size), format: form.format,
        rounds: Number(form.rounds), advance: Math.min(Number(form.advance), Math.max(1, form.size - 1)), fill: form.fill,
        bot_level: form.level, starts_at: new Date(form.start).getTime() / 1000,
      });
      location.hash = `tournament=${made.tournament}`;
    } catch (error) { tell(error.message); }
  };
  return html`<form class="new-tournament" id="new-tournament" onSubmit=${submit}>
    <h2 class="small">${t("web.new_tournament")}</h2>
    <div class="row">
      <label>${t("web.tournament_name")} <input id="tournament-name" maxlength="64" value=${form.name} onInput=${set("name")} /></label>
      <label>${t("web.game")} <select id="tournament-game" value=${game} onChange=${(event) => setGame(event.target.value)}>
        ${state.games.map((each) => html`<option value=${each.name}>${t(`${each.name}.name`)}</option>`)}</select></label>
      <label>${t("web.table_size")} <input id="tournament-size" type="number" min=${spec.min_players} max=${spec.max_players}
        value=${form.size} onInput=${set("size")} /></label>
    </div>
    <div class="row">
      <label>${t("web.tournament_format")} <select id="tournament-format" value=${form.format} onChange=${set("format")}>
        ${FORMATS.map((each) => html`<option value=${each}>${t(`web.format.${each}`)}</option>`)}</select></label>
      ${form.format === "knockout"
        ? html`<label>${t("web.advance")} <input id="tournament-advance" type="number" min="1" max=${Math.max(1, form.size - 1)}
            value=${Math.min(form.advance, Math.max(1, form.size - 1))} onInput=${set("advance")} /></label>`
        : form.format === "swiss"
          ? html`<label>${t("web.rounds")} <input id="tournament-rounds" type="number" min="1" max="20" value=${form.rounds} onInput=${set("rounds")} /></label>`
          : null}
      <label>${t("web.tournament_starts")} <input id="tournament-start" type="datetime-local" value=${form.start} onInput=${set("start")} required /></label>
    </div>
    <div class="row">
      <label>${t("web.fill")} <select id="tournament-fill" value=${form.fill} onChange=${set("fill")}>
        <option value="bots">${t("web.fill_bots")}</option><option value="smaller">${t("web.fill_smaller")}</option></select></label>
      <label>${t("web.bot_level")} <select id="tournament-level" value=${form.level} onChange=${set("level")}>
        ${LEVELS.map((each) => html`<option value=${each}>${t(`web.level.${each}`)}</option>`)}</select></label>
      <button type="submit" class="primary" id="make-tournament" disabled=${!form.name.trim() || !form.start}>${t("web.make_tournament")}</button>
    </div>
    <p class="hint">${t(`web.format_hint.${form.format}`)}</p>
  </form>`;
}

export function TournamentPage({ id }) {
  const [refresh, setRefresh] = useState(0);
  const [found, error] = useFetched(`/api/tournaments/${id}?seen=${refresh}`, REFRESH);
  useEffect(() => {
    // the chat's lines come over the socket while the page is open (after a reconnection,
    // the welcome asks for them again)
    if (state.connected) send({ type: "tournament", tournament: id });
    return () => { if (state.connected) send({ type: "tournament", tournament: null }); };
  }, [id]);
  if (!found) return html`<${Loading} error=${error} />`;
  const me = found.players.find((entry) => entry.name === state.user);
  const registered = me && !me.withdrawn;
  const act = async (what) => {
    try { await api(`/api/tournaments/${id}/${what}`, {}); setRefresh(refresh + 1); } catch (problem) { tell(problem.message); }
  };
  const rounds = [...new Set(found.tables.map((table) => table.round))];
  const live = ["registering", "running"].includes(found.status);
  return html`<section class="panel tournament" id="tournament" aria-labelledby="tournament-heading">
    <div class="row"><a class="button" href="#tournaments" id="back">${t("web.tournaments")}</a>
      <h1 id="tournament-heading">${found.name}</h1>
      <span class="chip">${t(`${found.game}.name`)}</span>
      <span class="chip">${t(`web.format.${found.format}`)}</span>
      <span class="chip" id="tournament-state">${t(`web.tournament_state.${found.status}`)}</span></div>
    ${found.status === "cancelled" ? html`<p class="cancelled" id="tournament-cancelled">${found.cancelled_by
      ? t("web.cancelled_by", { name: found.cancelled_by, reason: found.cancel_reason }) : t("web.cancelled_few")}</p>` : null}
    ${found.winner ? html`<p class="winner" id="tournament-winner">${t("web.tournament_won_by")} <${PlayerLink} name=${found.winner} /></p>` : null}
    ${found.status === "registering" || found.round ? html`<p id="tournament-when">${found.status === "registering"
      ? t("web.tournament_starts_at", { when: when(found.starts_at), players: found.table_size })
      : t("web.tournament_round", { round: found.round, rounds: found.format === "knockout" ? "—" : found.rounds })}</p>` : null}
    ${state.token && !state.guest && live ? html`<p>
      ${registered ? html`<button id="withdraw" onClick=${() => act("withdraw")}>${t("web.withdraw")}</button>`
        : found.status === "registering" ? html`<button class="primary" id="register-tournament" onClick=${() => act("register")}>${t("web.register_tournament")}</button>` : null}</p>` : null}
    ${found.standings.some((row) => row.games) ? html`<h2 class="small">${t("web.standings")}</h2>
      <div class="scroll"><table class="sheet listing" id="standings">
        <thead><tr><th scope="col">#</th><th scope="col">${t("web.player")}</th><th scope="col">${t("web.tournament_points")}</th>
          <th scope="col">${t("web.opponents_points")}</th><th scope="col">${t("web.margin")}</th><th scope="col">${t("web.games")}</th></tr></thead>
        <tbody>${found.standings.map((row) => html`<tr key=${row.name} class=${row.name === state.user ? "mine" : ""}>
          <td>${row.rank}</td><th scope="row"><${PlayerLink} name=${row.name} />${row.out ? html` <span class="chip">${t("web.out")}</span>` : null}</th>
          <td>${row.points}</td><td>${row.opponents_points}</td><td>${Math.round(row.margin)}</td><td>${row.games}</td></tr>`)}</tbody>
      </table></div>
      <p class="hint">${t("web.standings_hint")}</p>` : null}
    ${rounds.map((round) => html`<section key=${round} class="tournament-round" data-round=${round}>
      <h2 class="small">${t("web.round_number", { round })}</h2>
      <ul class="round-tables">${found.tables.filter((table) => table.round === round).map((table) => html`
        <li key=${table.table} class="row" data-table=${table.table}>
          <span>${table.players.map((name) => name ?? t("web.bot")).join(", ")}</span>
          ${table.absent.length ? html`<span class="chip">${t("web.absent", { names: table.absent.join(", ") })}</span>` : null}
          ${table.closed ? html`<span class="chip closed-table">${t("web.table_closed")}</span>`
            : html`<a class="button" href=${`#table=${table.table}`}>${t("web.watch")}</a>`}</li>`)}</ul>
    </section>`)}
    <h2 class="small">${t("web.registered", { count: found.players.filter((entry) => !entry.withdrawn).length })}</h2>
    <p id="tournament-players">${found.players.filter((entry) => !entry.withdrawn).map((entry, index) =>
      html`${index ? ", " : ""}<${PlayerLink} key=${entry.name} name=${entry.name} />`)}</p>
    ${state.roles.length && live ? html`<${CancelTournament} id=${id} done=${() => setRefresh(refresh + 1)} />` : null}
  </section>
  ${state.token ? html`<${ChatPanel} place=${{ room: `tournament-${id}` }} lines=${tournamentLog(id)}
    title=${t("web.tournament_chat")} readOnly=${state.guest ? t("web.tournament_chat_accounts") : null} />`
    : html`<section class="panel"><p class="hint" id="tournament-chat-sign-in">${t("web.tournament_chat_sign_in")}</p></section>`}`;
}

/** A moderator cancels the tournament, saying why: its players read it, and no round follows. */
function CancelTournament({ id, done }) {
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState("");
  const submit = async (event) => {
    event.preventDefault();
    try { await api(`/api/tournaments/${id}/cancel`, { reason: reason.trim() }); setAsking(false); done(); }
    catch (problem) { tell(problem.message); }
  };
  if (!asking) return html`<p><button class="danger" id="cancel-tournament" onClick=${() => setAsking(true)}>${t("web.cancel_tournament")}</button></p>`;
  return html`<form class="row reason-form" id="cancel-form" onSubmit=${submit}>
    <label class="grow">${t("web.cancel_reason")}
      <input class="reason" id="cancel-reason" maxlength="300" required value=${reason} onInput=${(event) => setReason(event.target.value)} /></label>
    <button type="submit" class="danger" id="cancel-confirm" disabled=${!reason.trim()}>${t("web.cancel_tournament")}</button>
    <button type="button" id="cancel-keep" onClick=${() => setAsking(false)}>${t("web.cancel_keep")}</button>
  </form>`;
}
