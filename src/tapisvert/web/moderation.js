// The moderators' page: the reports waiting (with what was said around them), a form for every
// act of moderation, the mutes and bans in force, who has a role, and the latest acts. The
// server refuses all of it to anyone who is not a moderator or an administrator.
import { html, useEffect, useState } from "./ui.js";
import { language, t } from "./i18n.js";
import { api, state, tell } from "./store.js";
import { PlayerLink } from "./community.js";

const ACTIONS = ["mute", "unmute", "kick", "ban", "unban", "close", "grant", "revoke"];
const NEEDS = {
  mute: ["name", "minutes", "scope"], unmute: ["name"], kick: ["name", "table"], ban: ["name", "minutes"],
  unban: ["name"], close: ["table"], grant: ["name", "role"], revoke: ["name", "role"],
};

function when(seconds) {
  return seconds === null ? t("web.for_good")
    : new Date(seconds * 1000).toLocaleString(language(), { dateStyle: "short", timeStyle: "short" });
}

export function ModerationPage() {
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  const load = () => api("/api/moderation").then((data) => { setPage(data); setError(null); },
    (problem) => setError(problem.message));
  useEffect(() => { load(); }, [state.connected]);
  const act = async (body) => {
    try {
      await api("/api/moderation", body);
      tell(t("web.done"), "info");
      load();
    } catch (problem) { tell(problem.message); }
  };
  const handle = async (report, outcome) => {
    try {
      await api(`/api/moderation/reports/${report.id}`, { outcome });
      load();
    } catch (problem) { tell(problem.message); }
  };
  const head = html`<div class="row"><a class="button" href="#" id="back">${t("web.back")}</a>
    <h1 id="moderation-heading">${t("web.moderation")}</h1></div>`;
  if (!page) {
    return html`<section class="panel" aria-labelledby="moderation-heading">${head}
      <p role=${error ? "alert" : "status"}>${error ?? t("web.loading")}</p></section>`;
  }
  return html`<div id="moderation">
    <section class="panel" aria-labelledby="moderation-heading">${head}
      <p class="hint">${t("web.moderation_hint")}</p></section>
    <section class="panel" aria-labelledby="reports-heading">
      <h2 id="reports-heading">${t("web.reports")}</h2>
      ${page.reports.length ? html`<ul class="reports" id="reports">${page.reports.map((report) => html`
        <li key=${report.id} class="report" data-report=${report.id}>
          <p><strong>${t(`web.reported_${report.kind}`)}</strong>${" · "}<${Target} report=${report} />${" · "}
            ${t("web.reported_by", { name: report.reporter, when: when(report.made_at) })}</p>
          ${report.reason ? html`<p class="quoted">${report.reason}</p>` : null}
          ${report.context.lines.length ? html`<details><summary>${t("web.context")}</summary>
            <ul class="context">${report.context.lines.map((line, index) => html`<li key=${index}
              class=${report.context.line?.text === line.text && report.context.line?.sender === line.sender ? "reported" : ""}>
              <strong>${line.sender}:</strong> ${line.text}</li>`)}</ul></details>` : null}
          <div class="row">
            <button class="primary acted" onClick=${() => handle(report, "acted")}>${t("web.report_acted")}</button>
            <button class="dismiss" onClick=${() => handle(report, "dismissed")}>${t("web.report_dismiss")}</button>
          </div></li>`)}</ul>` : html`<p id="reports">${t("web.no_reports")}</p>`}
    </section>
    <${ActForm} act=${act} />
    <section class="panel" aria-labelledby="sanctions-heading">
      <h2 id="sanctions-heading">${t("web.sanctions")}</h2>
      ${page.sanctions.length ? html`<div class="scroll" tabindex="0" role="region" aria-labelledby="sanctions-heading"><table class="sheet listing" id="sanctions">
        <thead><tr><th scope="col">${t("web.player")}</th><th scope="col">${t("web.sanction")}</th>
          <th scope="col">${t("web.reason")}</th><th scope="col">${t("web.until")}</th><th scope="col">${t("web.by")}</th>
          <th scope="col"><span class="visually-hidden">${t("web.lift")}</span></th></tr></thead>
        <tbody>${page.sanctions.map((row) => html`<tr key=${row.id}>
          <th scope="row">${row.name}</th>
          <td>${t(`web.sanction_${row.kind}`)} ${row.kind === "mute" ? scopeWords(row.scope) : ""}</td>
          <td>${row.reason}</td><td>${when(row.until)}</td><td>${row.given_by}</td>
          <td><button onClick=${() => act({ action: row.kind === "mute" ? "unmute" : "unban", name: row.name })}
            aria-label=${t("web.lift_of", { name: row.name })}>${t("web.lift")}</button></td></tr>`)}</tbody>
      </table></div>` : html`<p>${t("web.no_sanctions")}</p>`}
    </section>
    <section class="panel" aria-labelledby="staff-heading">
      <h2 id="staff-heading">${t("web.staff")}</h2>
      <ul class="staff" id="staff">${page.staff.map((row) => html`<li key=${`${row.name}${row.role}`}>
        <${PlayerLink} name=${row.name} /> — ${t(`web.role_${row.role}`)}</li>`)}</ul>
    </section>
    ${state.roles.includes("administrator") ? html`<${ResetLinkForm} done=${load} />` : null}
    <section class="panel" aria-labelledby="audit-heading">
      <h2 id="audit-heading">${t("web.audit")}</h2>
      <div class="scroll" tabindex="0" role="region" aria-labelledby="audit-heading"><table class="sheet listing" id="audit">
        <thead><tr><th scope="col">${t("web.when")}</th><th scope="col">${t("web.by")}</th><th scope="col">${t("web.act")}</th>
          <th scope="col">${t("web.target")}</th><th scope="col">${t("web.reason")}</th><th scope="col">${t("web.until")}</th></tr></thead>
        <tbody>${page.audit.map((row) => html`<tr key=${row.id}>
          <td>${when(row.at)}</td><td>${row.actor}</td><td>${t(`web.audit_${row.action}`)}</td>
          <td>${row.target}${row.detail.text ? html` <q>${row.detail.text}</q>` : null}${row.detail.role ? ` (${t(`web.role_${row.detail.role}`)})` : ""}</td>
          <td>${row.reason}</td><td>${row.action === "mute" || row.action === "ban" ? when(row.until) : ""}</td></tr>`)}</tbody>
      </table></div>
    </section>
  </div>`;
}

/** An administrator's one-time link that sets a person's password (there is no e-mail): made
 * here, then given to the person by whatever way they are reached. */
function ResetLinkForm({ done }) {
  const [name, setName] = useState("");
  const [link, setLink] = useState(null);
  const submit = async (event) => {
    event.preventDefault();
    try {
      const made = await api("/api/moderation/reset-links", { name: name.trim() });
      setLink(`${location.origin}${made.link}`);
      done();
    } catch (problem) { tell(problem.message); }
  };
  return html`<section class="panel" aria-labelledby="reset-links-heading">
    <h2 id="reset-links-heading">${t("web.reset_links")}</h2>
    <p class="hint">${t("web.reset_links_hint")}</p>
    <form class="act-form" id="reset-link-form" onSubmit=${submit}>
      <label>${t("web.name")} <input id="reset-name" required maxlength="32" value=${name}
        onInput=${(event) => { setName(event.target.value); setLink(null); }} /></label>
      <button type="submit" class="primary" id="make-reset-link">${t("web.make_reset_link")}</button>
    </form>
    ${link ? html`<p class="row"><label class="grow">${t("web.reset_link_for", { name })}
      <input id="reset-link" readonly value=${link} onFocus=${(event) => event.target.select()} /></label>
      <button type="button" onClick=${() => navigator.clipboard?.writeText(link).then(() => tell(t("web.reset_link_copied"), "info"))}>
        ${t("web.copy")}</button></p>` : null}
  </section>`;
}

function Target({ report }) {
  if (report.kind === "table") {
    const table = report.target.slice(1);
    return html`<a href=${`#table=${table}`}>${t("web.table_number", { table })}</a>`;
  }
  return html`<${PlayerLink} name=${report.target} />`;
}

function scopeWords(scope) {
  const [kind, where] = scope.split(":");
  return t(`web.scope_${kind}`, { where });
}

/** Every act of moderation in one form: the fields it needs show as the act is chosen. */
function ActForm({ act }) {
  const [fields, setFields] = useState({ action: "mute", name: "", minutes: "60", scope: "all", room: state.room,
    table: "", role: "moderator", reason: "" });
  const set = (name) => (event) => setFields({ ...fields, [name]: event.target.value });
  const needs = NEEDS[fields.action];
  const submit = (event) => {
    event.preventDefault();
    const body = { action: fields.action, reason: fields.reason };
    if (needs.includes("name")) body.name = fields.name.trim();
    if (needs.includes("minutes") && fields.minutes) body.minutes = Number(fields.minutes);
    if (needs.includes("scope")) Object.assign(body, { scope: fields.scope, room: fields.room });
    if (needs.includes("table") || (needs.includes("scope") && fields.scope === "table")) body.table = Number(fields.table);
    if (needs.includes("role")) body.role = fields.role;
    act(body);
  };
  const administrator = state.roles.includes("administrator");
  return html`<section class="panel" aria-labelledby="act-heading">
    <h2 id="act-heading">${t("web.act_heading")}</h2>
    <form class="act-form" id="act-form" onSubmit=${submit}>
      <label>${t("web.act")} <select id="act-action" value=${fields.action} onChange=${set("action")}>
        ${ACTIONS.filter((name) => administrator || !["grant", "revoke"].includes(name)).map((name) => html`
          <option key=${name} value=${name}>${t(`web.audit_${name}`)}</option>`)}</select></label>
      ${needs.includes("name") ? html`<label>${t("web.player")} <input id="act-name" maxlength="32" required
        value=${fields.name} onInput=${set("name")} /></label>` : null}
      ${needs.includes("minutes") ? html`<label>${t(fields.action === "ban" ? "web.minutes_or_forever" : "web.minutes")}
        <input id="act-minutes" type="number" min="1" required=${fields.action === "mute"} value=${fields.minutes}
          onInput=${set("minutes")} /></label>` : null}
      ${needs.includes("scope") ? html`<label>${t("web.scope")} <select id="act-scope" value=${fields.scope} onChange=${set("scope")}>
        ${["all", "room", "table"].map((name) => html`<option key=${name} value=${name}>${t(`web.scope_choice_${name}`)}</option>`)}
        </select></label>` : null}
      ${needs.includes("scope") && fields.scope === "room" ? html`<label>${t("web.room")} <select id="act-room"
        value=${fields.room} onChange=${set("room")}>${state.rooms.map((room) => html`<option key=${room} value=${room}>${room}</option>`)}
        </select></label>` : null}
      ${needs.includes("table") || (needs.includes("scope") && fields.scope === "table") ? html`<label>${t("web.table_field")}
        <input id="act-table" type="number" min="1" required value=${fields.table} onInput=${set("table")} /></label>` : null}
      ${needs.includes("role") ? html`<label>${t("web.role")} <select id="act-role" value=${fields.role} onChange=${set("role")}>
        ${["moderator", "administrator"].map((name) => html`<option key=${name} value=${name}>${t(`web.role_${name}`)}</option>`)}
        </select></label>` : null}
      <label class="wide">${t("web.reason")} <input id="act-reason" maxlength="300" value=${fields.reason}
        onInput=${set("reason")} /></label>
      <button type="submit" class="primary" id="act-submit">${t("web.act_submit")}</button>
    </form>
  </section>`;
}
