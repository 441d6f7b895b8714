// What brings players back: leaderboards, profiles with their finished games, who is online and
// where, the invitation link of a table, a finished game's replay from a profile.
import { html, useEffect, useState } from "./ui.js";
import { decimal, language, t, tn } from "./i18n.js";
import { api, changed, forgetSession, state, tell } from "./store.js";

/** The seats by place: the game's winners first (a tie on points may be broken by the rules),
 * then by points; seats level on both share a place. */
export function ranking(result, winners = []) {
  const won = (seat) => winners.includes(seat);
  const ahead = (a, b) => (won(a) !== won(b) ? won(a) : result[a] > result[b]);
  const seats = result.map((_, seat) => seat);
  const place = (seat) => 1 + seats.filter((other) => ahead(other, seat)).length;
  return seats.map((index) => ({ index, points: result[index], place: place(index) }))
    .sort((a, b) => a.place - b.place);
}

/** The account a seat plays for: the person's name, or the account of the bot's level. */
export function accountName(seat) {
  return seat.kind === "bot" ? `bot ${seat.level}` : seat.name;
}

/** What a seat's player is, beside its name: a built-in bot's level, or the owner of a bot
 * account (someone's own program); nothing for a person. */
export function SeatChip({ seat }) {
  if (seat.kind === "bot") return html` <span class="chip">${t(`web.level.${seat.level}`)}</span>`;
  if (seat.owner) return html` <span class="chip bot-account">${t("web.bot_of", { owner: seat.owner })}</span>`;
  return null;
}

export function profileLink(name) {
  return `#player=${encodeURIComponent(name)}`;
}

export function PlayerLink({ name, account = name }) {
  return html`<a class="player" href=${profileLink(account)}>${name}</a>`;
}

function signed(number) {
  const text = decimal(number);
  return number > 0 ? `+${text}` : number === 0 ? `±${text}` : text;
}

/** A rating before and after a game: "0.0 → 2.3 (+2.3)". */
export function RatingChange({ before, after }) {
  const delta = after - before;
  return html`<span class=${`rating-change ${delta > 0 ? "up" : delta < 0 ? "down" : ""}`}>
    ${t("web.rating_change", { before: decimal(before), after: decimal(after), delta: signed(delta) })}</span>`;
}

/** Fetch `path` whenever it changes, and again once this page's socket is connected (the
 * person is online from then on); `[data, error]`, both null while it first loads. */
export function useFetched(path, refresh = 0) {
  const [found, setFound] = useState([null, null]);
  useEffect(() => {
    let current = true;
    const load = () => api(path).then((data) => current && setFound([data, null]),
      (error) => current && setFound([null, error.message]));
    load();
    const timer = refresh ? setInterval(load, refresh) : null;
    return () => { current = false; clearInterval(timer); };
  }, [path, state.connected]);
  return found;
}

export function Loading({ error }) {
  return html`<section class="panel"><p role=${error ? "alert" : "status"}>${error ?? t("web.loading")}</p>
    <a class="button" href="#">${t("web.back")}</a></section>`;
}

export function when(seconds) {
  return new Date(seconds * 1000).toLocaleString(language(), { dateStyle: "medium", timeStyle: "short" });
}

const WHO = ["all", "people", "bots"];
const SPEEDS = ["live", "days"];

export function Leaderboard({ game }) {
  const [who, setWho] = useState("all");
  const [speed, setSpeed] = useState("live");
  const [board, error] = useFetched(`/api/leaderboards/${encodeURIComponent(game)}?who=${who}&speed=${speed}`);
  return html`<section class="panel" id="leaderboard" aria-labelledby="leaderboard-heading">
    <div class="row"><a class="button" href="#" id="back">${t("web.back")}</a>
      <h1 id="leaderboard-heading">${t("web.leaderboard")}</h1></div>
    <nav class="row games-nav" aria-label=${t("web.game")}>
      ${state.games.map((spec) => html`<a key=${spec.name} class=${`button${spec.name === game ? " primary" : ""}`}
        aria-current=${spec.name === game ? "page" : null} href=${`#leaderboard=${spec.name}`}>${t(`${spec.name}.name`)}</a>`)}
    </nav>
    <div class="row who-nav" role="group" aria-label=${t("web.leaderboard")}>
      ${WHO.map((each) => html`<button key=${each} type="button" id=${`who-${each}`} class=${each === who ? "primary" : ""}
        aria-pressed=${each === who} onClick=${() => setWho(each)}>${t(`web.who_${each}`)}</button>`)}
    </div>
    <div class="row speed-nav" role="group" aria-label=${t("web.speed")}>
      ${SPEEDS.map((each) => html`<button key=${each} type="button" id=${`speed-${each}`} class=${each === speed ? "primary" : ""}
        aria-pressed=${each === speed} onClick=${() => setSpeed(each)}>${t(`web.speed_${each}`)}</button>`)}
    </div>
    ${!board ? html`<p role=${error ? "alert" : "status"}>${error ?? t("web.loading")}</p>` : html`
      <p class="hint">${tn("web.leaderboard_minimum", board.minimum)} ${t("web.rating_hint")}</p>
      ${board.players.length ? html`<div class="scroll"><table class="sheet listing">
        <thead><tr><th scope="col">#</th><th scope="col">${t("web.player")}</th><th scope="col">${t("web.rating")}</th>
          <th scope="col">${t("web.rated_games")}</th><th scope="col">${t("web.wins")}</th></tr></thead>
        <tbody>${board.players.map((row, index) => html`<tr key=${row.name} class=${row.name === state.user ? "mine" : ""}>
          <td>${index + 1}</td><th scope="row"><${PlayerLink} name=${row.name} />${row.bot ? html` <span class="chip">${t("web.bot")}</span>` : null}</th>
          <td>${decimal(row.rating)}</td><td>${row.games}</td><td>${row.wins}</td></tr>`)}</tbody>
      </table></div>` : html`<p>${t("web.leaderboard_empty")}</p>`}`}
  </section>`;
}

/** Up to two initials of a name ("bot easy": "BE", "ana": "A"). */
export function initials(name) {
  const words = name.split(/[\s._-]+/).filter(Boolean);
  return (words.length ? words.slice(0, 2) : [name]).map((word) => [...word][0] ?? "").join("").toUpperCase();
}

/** Initials in a circle whose colour the name chooses; dark enough for white letters
 * (lightness 28%: at least 5:1 against white whatever the hue). */
export function Avatar({ name }) {
  let hue = 0;
  for (const character of name) hue = (hue * 31 + character.codePointAt(0)) % 360;
  return html`<span class="avatar" aria-hidden="true" style=${`background: hsl(${hue} 45% 28%)`}>${initials(name)}</span>`;
}

const GRAPH = { width: 300, height: 110, left: 34, right: 8, top: 10, bottom: 22 };

/** A game's rating over its latest rated games, oldest on the left, as a line from the
 * rating before the first of them. */
function RatingGraph({ game, steps }) {
  const values = [steps[0].before, ...steps.map((step) => step.rating)];
  const low = Math.min(...values), high = Math.max(...values);
  const span = high - low || 1;
  const innerWidth = GRAPH.width - GRAPH.left - GRAPH.right, innerHeight = GRAPH.height - GRAPH.top - GRAPH.bottom;
  const x = (index) => GRAPH.left + (index * innerWidth) / steps.length;
  const y = (value) => GRAPH.top + (high === low ? innerHeight / 2 : ((high - value) * innerHeight) / span);
  const points = values.map((value, index) => `${x(index).toFixed(1)},${y(value).toFixed(1)}`).join(" ");
  const day = (seconds) => new Date(seconds * 1000).toLocaleDateString(language(), { dateStyle: "medium" });
  const first = steps[0], last = steps[steps.length - 1];
  const name = t(`${game}.name`);
  const summary = tn("web.rating_graph", steps.length, {
    game: name, first: decimal(first.before), last: decimal(last.rating), low: decimal(low), high: decimal(high),
  });
  return html`<figure class="rating-graph" data-game=${game}>
    <figcaption>${name}</figcaption>
    <svg viewBox=${`0 0 ${GRAPH.width} ${GRAPH.height}`} role="img" aria-label=${summary}>
      <line class="axis" x1=${GRAPH.left} y1=${GRAPH.top + innerHeight} x2=${GRAPH.width - GRAPH.right} y2=${GRAPH.top + innerHeight} />
      <text x=${GRAPH.left - 4} y=${y(high) + 4} text-anchor="end">${decimal(high)}</text>
      ${high !== low ? html`<text x=${GRAPH.left - 4} y=${y(low) + 4} text-anchor="end">${decimal(low)}</text>` : null}
      <text x=${GRAPH.left} y=${GRAPH.height - 6}>${day(first.finished_at)}</text>
      ${day(last.finished_at) !== day(first.finished_at) ? html`<text x=${GRAPH.width - GRAPH.right} y=${GRAPH.height - 6}
        text-anchor="end">${day(last.finished_at)}</text>` : null}
      <polyline points=${points} />
      <circle cx=${x(steps.length)} cy=${y(last.rating)} r="3.5" />
    </svg>
  </figure>`;
}

export function Profile({ name, Actions = null }) {
  const [player, error] = useFetched(`/api/players/${encodeURIComponent(name)}`);
  if (!player) return html`<${Loading} error=${error} />`;
  return html`<section class="panel profile" id="profile" aria-labelledby="profile-heading">
    <div class="row"><a class="button" href="#" id="back">${t("web.back")}</a>
      <${Avatar} name=${player.name} /><h1 id="profile-heading">${player.name}</h1>
      ${player.bot ? html`<span class="chip">${t("web.bot")}</span>` : player.guest ? html`<span class="chip">${t("web.guest_account")}</span>` : null}
      <span class=${`chip ${player.online ? "online" : ""}`}>${player.online ? t("web.online") : t("web.offline")}</span>
    </div>
    ${player.owner ? html`<p id="bot-owner">${t("web.bot_of", { owner: "" })}<${PlayerLink} name=${player.owner} /></p>` : null}
    ${player.bots.length ? html`<p id="owned-bots">${t("web.owned_bots")}${player.bots.map((bot, index) =>
      html`${index ? ", " : ""}<${PlayerLink} key=${bot} name=${bot} />`)}</p>` : null}
    ${player.won.length ? html`<p id="tournaments-won">🏆 ${t("web.tournaments_won")} ${player.won.map((won, index) =>
      html`${index ? ", " : ""}<a key=${won.tournament} href=${`#tournament=${won.tournament}`}>${won.name}</a> (${t(`${won.game}.name`)})`)}</p>` : null}
    ${Actions ? html`<${Actions} player=${player} />` : null}
    ${player.level ? html`<p class="hint" id="bot-strength">${t(`web.bot_strength.${player.level}`)}</p>` : null}
    <p id="profile-week">${tn("web.played_this_week", player.week)}</p>
    <h2 class="small">${t("web.ratings")}</h2>
    ${player.ratings.length ? html`<div class="scroll"><table class="sheet listing" id="profile-ratings">
      <thead><tr><th scope="col">${t("web.game")}</th><th scope="col">${t("web.rating")}</th>
        <th scope="col">${t("web.rated_games")}</th><th scope="col">${t("web.wins")}</th></tr></thead>
      <tbody>${player.ratings.map((row) => html`<tr key=${`${row.game}-${row.speed}`}><th scope="row">
        <a href=${`#leaderboard=${row.game}`}>${t(`${row.game}.name`)}</a>${row.speed === "days"
          ? html` <span class="chip">${t("web.speed_days")}</span>` : null}</th>
        <td>${decimal(row.rating)}</td><td>${row.games}</td><td>${row.wins}</td></tr>`)}</tbody>
    </table></div>
    <div class="rating-graphs" id="rating-graphs">${player.ratings.map((row) => {
      const steps = player.progress.filter((step) => step.game === row.game && step.speed === row.speed);
      return steps.length ? html`<${RatingGraph} key=${`${row.game}-${row.speed}`} game=${row.game} steps=${steps} />` : null;
    })}</div>` : html`<p>${player.guest ? t("web.guests_unrated") : t("web.no_rating")}</p>`}
    <h2 class="small">${t("web.games_played")}</h2>
    ${player.games.length ? html`<ul class="counts">${player.games.map((row) => html`<li key=${row.game}>
      <strong>${t(`${row.game}.name`)}</strong> ${tn("web.played", row.played)}, ${tn("web.won", row.won)}</li>`)}</ul>`
      : html`<p>${t("web.no_games")}</p>`}
    ${player.history.length ? html`<h2 class="small">${t("web.finished_games")}</h2>` : null}
    <ul class="history" id="history">${player.history.map((game) => html`<li key=${game.table} class="row" data-table=${game.table}>
      <strong>#${game.table} ${t(`${game.game}.name`)}</strong>
      <span>${when(game.finished_at)}</span>
      <span>${t("web.place_of", { place: game.place, players: game.seats.length })} · ${t("web.points", { points: game.score })}</span>
      ${game.absent ? html`<span class="chip">${t("web.played_by_bot")}</span>` : null}
      ${game.rating_after !== null ? html`<${RatingChange} before=${game.rating_before} after=${game.rating_after} />` : null}
      <span class="with">${t("web.with", { names: game.seats.filter((_, seat) => seat !== game.seat).join(", ") })}</span>
      <a class="button" href=${`#replay=${game.table}`}>${t("web.replay")}</a>
    </li>`)}</ul>
    ${player.name === state.user && !player.guest && !player.bot ? html`<${OwnBots} bots=${player.bots} />` : null}
    ${player.name === state.user && !player.guest ? html`<${PasswordForm} />` : null}
    ${player.name === state.user ? html`<${ExportForm} />` : null}
    ${player.name === state.user ? html`<${AccountForm} guest=${player.guest} />` : null}
    ${state.token && !state.guest && !player.bot && player.name !== state.user ? html`<${ReportPerson} name=${player.name} />` : null}
  </section>`;
}

/** One's bot accounts: a new one, a new token for each (shown once), its tokens revoked. */
function OwnBots({ bots }) {
  const [names, setNames] = useState(bots);
  const [mine] = useFetched("/api/bots");
  const [invites, setInvites] = useState({});
  const invitesOf = (bot) => invites[bot] ?? mine?.find((each) => each.name === bot)?.invites ?? "anyone";
  const allow = async (bot, value) => {
    try {
      await api(`/api/bots/${encodeURIComponent(bot)}/invites`, { invites: value }, "PUT");
      setInvites({ ...invites, [bot]: value });
    } catch (error) { tell(error.message); }
  };
  const [name, setName] = useState("");
  const [token, setToken] = useState(null);
  const made = async (event) => {
    event.preventDefault();
    try {
      const bot = await api("/api/bots", { name });
      setNames([...names, bot.name].sort());
      setName("");
    } catch (error) { tell(error.message); }
  };
  const renew = async (bot) => {
    try { setToken(await api(`/api/bots/${encodeURIComponent(bot)}/token`, {})); } catch (error) { tell(error.message); }
  };
  const revoke = async (bot) => {
    try {
      await api(`/api/bots/${encodeURIComponent(bot)}/token`, undefined, "DELETE");
      if (token?.name === bot) setToken(null);
      tell(t("web.token_revoked", { name: bot }), "info");
    } catch (error) { tell(error.message); }
  };
  return html`<section class="own-bots" id="own-bots" aria-labelledby="own-bots-heading">
    <h2 class="small" id="own-bots-heading">${t("web.your_bots")}</h2>
    <p class="hint">${t("web.your_bots_hint")}</p>
    <ul class="bot-list">${names.map((bot) => html`<li key=${bot} class="row" data-bot=${bot}>
      <${PlayerLink} name=${bot} />
      <button type="button" class="new-token" onClick=${() => renew(bot)}>${t("web.new_token")}</button>
      <button type="button" class="revoke-token" onClick=${() => revoke(bot)}>${t("web.revoke_token")}</button>
      <label>${t("web.bot_invites")} <select class="bot-invites" value=${invitesOf(bot)} onChange=${(event) => allow(bot, event.target.value)}>
        ${["anyone", "friends", "nobody"].map((each) => html`<option value=${each}>${t(`web.invites.${each}`)}</option>`)}</select></label>
    </li>`)}</ul>
    ${token ? html`<p class="token" id="bot-token"><label>${t("web.token_once", { name: token.name })}
      <input readonly value=${token.token} onFocus=${(event) => event.target.select()} /></label></p>` : null}
    <form class="row" id="new-bot" onSubmit=${made}>
      <label>${t("web.new_bot_name")} <input id="new-bot-name" maxlength="32" value=${name}
        onInput=${(event) => setName(event.target.value)} /></label>
      <button type="submit" id="make-bot" disabled=${!name.trim()}>${t("web.make_bot")}</button>
    </form>
  </section>`;
}

/** Tell the moderators about this person, with a reason. */
function ReportPerson({ name }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const submit = async (event) => {
    event.preventDefault();
    try {
      await api("/api/reports", { kind: "player", name, reason });
      tell(t("web.reported"), "info");
      setOpen(false);
      setReason("");
    } catch (error) { tell(error.message); }
  };
  if (!open) return html`<p><button id="report-player" onClick=${() => setOpen(true)}>${t("web.report_player")}</button></p>`;
  return html`<form class="row reason-form" id="report-form" onSubmit=${submit}>
    <label class="grow">${t("web.report_reason")}
      <input class="reason" maxlength="300" value=${reason} onInput=${(event) => setReason(event.target.value)} /></label>
    <button type="submit" class="primary">${t("web.report")}</button>
    <button type="button" onClick=${() => setOpen(false)}>${t("web.cancel")}</button>
  </form>`;
}

/** One's own password, changed: every other session of the account ends (other devices sign
 * in again); this one carries on. */
function PasswordForm() {
  const [old, setOld] = useState("");
  const [fresh, setFresh] = useState("");
  const submit = async (event) => {
    event.preventDefault();
    try {
      await api("/api/password", { old, new: fresh });
      setOld("");
      setFresh("");
      tell(t("web.password_changed"), "info");
    } catch (error) {
      tell(error.message);
    }
  };
  return html`<form class="password" id="password-form" onSubmit=${submit}>
    <h2 class="small">${t("web.change_password")}</h2>
    <label>${t("web.old_password")} <input type="password" id="old-password" autocomplete="current-password"
      value=${old} onInput=${(event) => setOld(event.target.value)} /></label>
    <label>${t("web.new_password")} <input type="password" id="new-password" autocomplete="new-password"
      value=${fresh} onInput=${(event) => setFresh(event.target.value)} /></label>
    <button type="submit" id="change-password">${t("web.change_password")}</button>
  </form>`;
}

/** One's data, downloaded as a file; one's account, deleted for good once confirmed (with
 * the password, for a registered account): the games stay, the name goes from them. */
function AccountForm({ guest }) {
  const [password, setPassword] = useState("");
  const [sure, setSure] = useState(false);
  const download = async () => {
    try {
      const data = await api("/api/account/data");
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }));
      link.download = `tapisvert-${state.user}.json`;
      link.click();
      URL.revokeObjectURL(link.href);
    } catch (error) {
      tell(error.message);
    }
  };
  const remove = async (event) => {
    event.preventDefault();
    try {
      await api("/api/account/delete", { password });
      forgetSession();
      tell(t("web.account_deleted"), "info");
    } catch (error) {
      tell(error.message);
    }
  };
  return html`<section class="account" aria-labelledby="account-heading">
    <h2 class="small" id="account-heading">${t("web.your_account")}</h2>
    <p><button type="button" id="download-data" onClick=${download}>${t("web.download_data")}</button>
      <span class="hint">${t("web.download_data_hint")}</span></p>
    <form class="delete-account" id="delete-account" onSubmit=${remove}>
      <p class="hint">${t("web.delete_account_hint")}</p>
      ${guest ? null : html`<label>${t("web.old_password")} <input type="password" id="delete-password"
        autocomplete="current-password" value=${password} onInput=${(event) => setPassword(event.target.value)} /></label>`}
      <label class="confirm"><input type="checkbox" id="delete-sure" checked=${sure}
        onChange=${(event) => setSure(event.target.checked)} /> ${t("web.delete_account_sure")}</label>
      <button type="submit" class="danger" id="delete-account-button" disabled=${!sure}>${t("web.delete_account")}</button>
    </form>
  </section>`;
}

/** What the open database of games may show of one's games: one's name (else a
 * pseudonym), one's unrated games (each only if everyone at it allowed it). Both start off. */
function ExportForm() {
  const [choices, setChoices] = useState(null);
  useEffect(() => {
    api("/api/account/export").then(setChoices, (error) => tell(error.message));
  }, []);
  const choose = async (name, value) => {
    try {
      setChoices(await api("/api/account/export", { ...choices, [name]: value }, "PUT"));
      tell(t("web.export_saved"), "info");
    } catch (error) {
      tell(error.message);
    }
  };
  if (choices === null) return null;
  return html`<section class="export-choices" id="export-choices" aria-labelledby="export-heading">
    <h2 class="small" id="export-heading">${t("web.export_heading")}</h2>
    <p class="hint">${t("web.export_hint")}</p>
    <label><input type="checkbox" id="export-name" checked=${choices.name}
      onChange=${(event) => choose("name", event.target.checked)} /> ${t("web.export_name")}</label>
    <label><input type="checkbox" id="export-unrated" checked=${choices.unrated}
      onChange=${(event) => choose("unrated", event.target.checked)} /> ${t("web.export_unrated")}</label>
  </section>`;
}

/** A one-time link from an administrator (`#reset=KEY`): a new password, then signing in. */
export function ResetPassword({ resetKey }) {
  const [password, setPassword] = useState("");
  const submit = async (event) => {
    event.preventDefault();
    try {
      const done = await api("/api/password-reset", { key: resetKey, password });
      tell(t("web.password_reset_done", { name: done.user }), "info");
      location.hash = "";
    } catch (error) {
      tell(error.message);
    }
  };
  return html`<section class="panel" aria-labelledby="reset-heading">
    <h1 id="reset-heading">${t("web.password_reset")}</h1>
    <p class="hint">${t("web.password_reset_hint")}</p>
    <form class="row" id="reset-form" onSubmit=${submit}>
      <label>${t("web.new_password")} <input type="password" id="reset-password" autocomplete="new-password"
        value=${password} onInput=${(event) => setPassword(event.target.value)} /></label>
      <button type="submit" class="primary" id="reset-button">${t("web.password_reset_set")}</button>
    </form>
  </section>`;
}

/** Who is online, and at which table: a link to each. Refreshed while the lobby is open. */
export function Presence() {
  const [people] = useFetched("/api/presence", 10_000);
  return html`<section class="panel" id="presence" aria-labelledby="presence-heading">
    <h2 class="small" id="presence-heading">${t("web.online_now")}</h2>
    ${people ? html`<ul class="presence">${people.map((person) => html`<li key=${person.name}>
      <${PlayerLink} name=${person.name} />
      ${person.tables.map((place) => html` <a key=${place.table} class="chip" href=${`#table=${place.table}`}>
        ${t(place.seat === null ? "web.watching_at" : "web.playing_at", { table: place.table, game: t(`${place.game}.name`) })}</a>`)}
    </li>`)}</ul>` : null}
  </section>`;
}

/** The link that seats whoever opens it at this table, once signed in. */
export function Invitation({ table }) {
  const link = `${location.origin}/#join=${table}`;
  useEffect(() => {  // a table just opened to play with friends: its link selected, to copy
    if (state.inviting !== table) return;
    state.inviting = null;
    document.getElementById("invite-link").focus();
  }, [table]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
      tell(t("web.invite_copied"), "info");
    } catch {
      document.getElementById("invite-link").select();
      tell(t("web.invite_copy_by_hand"), "info");
    }
  };
  return html`<div class="invite">
    <label for="invite-link">${t("web.invite")}</label>
    <div class="row"><span class="grow"><input id="invite-link" readonly value=${link}
      onFocus=${(event) => event.target.select()} /></span>
      <button id="copy-invite" onClick=${copy}>${t("web.copy")}</button></div>
  </div>`;
}

/** A finished game from a profile: its table may have left the lobby, its replay has not. */
export function ReplayScreen({ id, Replay, ScoreSheet }) {
  const [info, error] = useFetched(`/api/tables/${id}`);
  const [steps, setSteps] = useState(null);
  const show = (loaded) => { state.replay = { table: id, steps: loaded, index: 0 }; changed(); };
  useEffect(() => {
    api(`/api/tables/${id}/replay`).then((loaded) => { setSteps(loaded); show(loaded); },
      (problem) => tell(problem.message));
  }, [id]);
  if (!info) return html`<${Loading} error=${error} />`;
  const module = state.boards[info.game];
  return html`<div class="table-screen">
    <section class="panel table-head"><div class="row">
      <a class="button" href="#" id="back">${t("web.back")}</a>
      <h1>#${id} ${t(`${info.game}.name`)}</h1>
      <ol class="final" id="final">${ranking(info.result ?? info.seats.map(() => 0)).map(({ index, place }) => html`<li key=${index} data-seat=${index}>
        ${info.result ? html`<span class="place">${t("web.place", { place })}</span> ` : null}
        <${PlayerLink} name=${info.seats[index].name} account=${accountName(info.seats[index])} />
        ${info.result ? html` <span>${t("web.points", { points: info.result[index] })}</span>` : null}
        ${info.ratings?.[index] ? html` <${RatingChange} before=${info.ratings[index].before} after=${info.ratings[index].after} />`
          : info.ratings?.some(Boolean) ? html` <span class="chip">${t("web.not_rated")}</span>` : null}
      </li>`)}</ol>
      ${steps && state.replay?.table !== id ? html`<button class="primary" id="replay" onClick=${() => show(steps)}>${t("web.replay")}</button>` : null}
    </div></section>
    ${state.replay?.table === id ? html`<${Replay} info=${info} module=${module} />`
      : steps ? null : html`<section class="panel"><p role="status">${t("web.loading")}</p></section>`}
    ${steps ? html`<${ScoreSheet} info=${info} view=${steps[steps.length - 1].view} />` : null}
  </div>`;
}
