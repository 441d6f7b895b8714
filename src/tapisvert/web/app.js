// The tapisvert web app: sign-in, lobby, tables. Plain ES modules, no build step; Preact renders
// only what changed. Every text comes from the server's catalogues; names and chat are text.
import { html, render, useEffect, useState } from "./ui.js";
import { language, t } from "./i18n.js";
import { api, currentTable, myTurns, route, signedIn, signOut, start, state, subscribe,
  switchLanguage, tell, toggleSound } from "./store.js";
import { Lobby } from "./lobby.js";
import { Replay, ScoreSheet, TableScreen, focusHand } from "./table.js";
import { RulesButton } from "./rules.js";
import { Leaderboard, Profile, ReplayScreen, ResetPassword, profileLink } from "./community.js";
import { ModerationPage } from "./moderation.js";
import { TournamentPage, TournamentsPage } from "./tournaments.js";
import { MessagesLink, MessagesPanel, ProfileActions } from "./messages.js";

function App() {
  const [, setVersion] = useState(0);
  useEffect(() => subscribe(() => setVersion((version) => version + 1)), []);
  const waiting = myTurns();
  const ready = state.games.length > 0;
  useEffect(() => {
    if (ready) document.title = waiting.length ? `● ${t("web.title_your_turn")} — tapisvert` : t("web.title");
  });
  if (!ready) return null;
  const table = currentTable();
  const page = route();
  return html`
    ${table ? html`<a class="skip-link" href="#dock" onClick=${(event) => { event.preventDefault(); focusHand(); }}>
      ${t("web.skip_to_hand")}</a>` : null}
    <header id="bar">
      <a class="brand" href="#">tapisvert</a>
      <a class="nav" id="leaderboards" href=${`#leaderboard=${state.games[0].name}`}>${t("web.leaderboards")}</a>
      <a class="nav" id="tournaments-link" href="#tournaments">${t("web.tournaments")}</a>
      ${state.roles.length ? html`<a class="nav" id="moderation-link" href="#moderation">${t("web.moderation")}</a>` : null}
      ${state.token ? html`<a class="me" href=${profileLink(state.user)} title=${t("web.my_profile")}>${state.user}</a>` : null}
      ${state.token ? html`<${MessagesLink} />` : null}
      ${state.token && waiting.length && waiting[0] !== table ? html`
        <a class="your-turn" href=${`#table=${waiting[0]}`}>${t("web.your_turn_at", { table: waiting[0] })}</a>` : null}
      <${RulesButton} />
      <button id="sound" aria-pressed=${String(state.sound)} onClick=${toggleSound}
        title=${t("web.sound_hint")}>${state.sound ? t("web.sound_on") : t("web.sound_off")}</button>
      <button id="language" onClick=${switchLanguage} lang=${language() === "en" ? "fr" : "en"}>${t("web.language")}</button>
      ${state.token ? html`<button onClick=${signOut}>${t("web.sign_out")}</button>` : null}
    </header>
    ${state.notice ? html`<div id="notice" role="alert" class=${state.notice.kind}>
      <span>${state.notice.text}</span>
      <button class="close" aria-label=${t("web.close")} onClick=${() => { state.notice = null; setVersion((v) => v + 1); }}>×</button>
    </div>` : null}
    <main id="main">
      ${page?.kind === "player" ? html`<${Profile} name=${page.value} key=${page.value} Actions=${ProfileActions} />`
        : page?.kind === "leaderboard" ? html`<${Leaderboard} game=${page.value} key=${page.value} />`
        : page?.kind === "tournaments" ? html`<${TournamentsPage} />`
        : page?.kind === "tournament" ? html`<${TournamentPage} id=${page.value} key=${page.value} />`
        : page?.kind === "moderation" && state.token ? html`<${ModerationPage} />`
        : page?.kind === "replay" ? html`<${ReplayScreen} id=${page.value} key=${page.value} Replay=${Replay} ScoreSheet=${ScoreSheet} />`
        : page?.kind === "reset" ? html`<${ResetPassword} resetKey=${page.value} />`
        : !state.token ? html`<${SignIn} invited=${page?.kind === "join" ? page.value : null} />`
        : page?.kind === "messages" ? html`<${MessagesPanel} name=${page.value} key=${page.value ?? ""} />`
        : table ? html`<${TableScreen} id=${table} key=${table} />` : html`<${Lobby} />`}
    </main>`;
}

function SignIn({ invited }) {
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const attempt = (path, withPassword) => async (event) => {
    event.preventDefault();
    if (!name.trim()) { tell(t("web.name_needed")); return; }
    try {
      signedIn(await api(path, { name: name.trim(), password: withPassword ? password : "" }));
    } catch (error) { tell(error.message); }
  };
  return html`
    <section class="panel sign-in">
      <h1>${t("web.tagline")}</h1>
      ${invited ? html`<p class="invited" id="invited">${t("web.invited", { table: invited })}</p>` : null}
      <form class="row" onSubmit=${attempt("/api/guest", false)}>
        <label>${t("web.name")} <input id="name" autocomplete="username" maxlength="32" value=${name}
          onInput=${(event) => setName(event.target.value)} /></label>
        <button class="primary" type="submit" id="guest">${t("web.guest")}</button>
      </form>
      <div class="row">
        <label>${t("web.password")} <input id="password" type="password" autocomplete="current-password"
          value=${password} onInput=${(event) => setPassword(event.target.value)} /></label>
        <button id="login" onClick=${attempt("/api/login", true)}>${t("web.login")}</button>
        <button id="register" onClick=${attempt("/api/register", true)}>${t("web.register")}</button>
      </div>
      <p class="hint">${t("web.sign_in_hint")}</p>
    </section>
    <section class="panel games-intro" aria-labelledby="games-heading">
      <h2 id="games-heading">${t("web.the_games")}</h2>
      <dl>${state.games.map((spec) => html`<div key=${spec.name}>
        <dt>${t(`${spec.name}.name`)} <span class="chip">${t("web.players_range", { min: spec.min_players, max: spec.max_players })}</span></dt>
        <dd>${t(`${spec.name}.board.blurb`)}</dd></div>`)}</dl>
    </section>`;
}

render(html`<${App} />`, document.getElementById("root"));
start();
