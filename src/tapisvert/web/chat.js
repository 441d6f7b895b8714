// A log of what was said and what happened, with a line to type in. What the person types is
// their own state: no frame from the server touches it. Beside each chat line, a person with an
// account may report it, and a moderator remove it for everyone; either asks for a reason first.
import { html, useLayoutEffect, useRef, useState } from "./ui.js";
import { t } from "./i18n.js";
import { api, send, state, tell } from "./store.js";

/** `place`: where one says it (a table, a room, a tournament's room); `readOnly`: why this
 * person may read and not write here, said instead of the line to type in. */
export function ChatPanel({ place, lines, title, readOnly = null }) {
  const [text, setText] = useState("");
  const [asked, setAsked] = useState(null);  // { kind: "report" | "remove", line }
  const box = useRef(null);
  const stuck = useRef(true);
  useLayoutEffect(() => {
    if (box.current && stuck.current) box.current.scrollTop = box.current.scrollHeight;
  });
  const post = (event) => {
    event.preventDefault();
    if (!text.trim()) return;
    const joining = /^\/join\b/.test(text.trim());
    // `/join N` typed in a room seats the person at table N: the page goes there too.
    send({ type: "chat", text: text.trim(), ...place }, (answer) => {
      if (joining && answer.type === "ack" && answer.table) location.hash = `table=${answer.table}`;
    });
    setText("");
  };
  const id = place.table ? "table-chat" : place.room?.startsWith("tournament-") ? "tournament-chat" : "room-chat";
  const reports = state.token && !state.guest;
  const removes = state.roles.length > 0;
  return html`
    <section class="panel chat" aria-label=${title}>
      <h2 class="small">${title}</h2>
      <div class="log" ref=${box} role="log" tabindex="0" aria-label=${title} onScroll=${(event) => {
        const element = event.currentTarget;
        stuck.current = element.scrollTop + element.clientHeight >= element.scrollHeight - 8;
      }}>
        ${lines.map((line) => html`<div key=${line.key} class=${line.kind}>
          ${line.kind === "chat" ? html`<span class="who">${line.sender}: </span>` : null}${line.text}
          ${line.kind === "chat" && line.line && line.sender !== state.user ? html`<span class="line-acts">
            ${reports ? html`<button class="tiny report-line" onClick=${() => setAsked({ kind: "report", line })}
              aria-label=${t("web.report_line_of", { name: line.sender })} title=${t("web.report")}>⚑</button>` : null}
            ${removes ? html`<button class="tiny remove-line" onClick=${() => setAsked({ kind: "remove", line })}
              aria-label=${t("web.remove_line_of", { name: line.sender })} title=${t("web.remove")}>✕</button>` : null}
          </span>` : null}</div>`)}
      </div>
      ${asked ? html`<${ReasonForm} key=${`${asked.kind}${asked.line.line}`} asked=${asked} place=${place}
        done=${() => setAsked(null)} />` : null}
      ${readOnly ? html`<p class="hint">${readOnly}</p>` : html`<form class="row say" onSubmit=${post}>
        <label class="grow"><span class="visually-hidden">${t("web.chat_hint")}</span>
          <input id=${id} placeholder=${t("web.chat_hint")} maxlength="500" value=${text}
            onInput=${(event) => setText(event.target.value)} /></label>
        <button type="submit">${t("web.send")}</button>
      </form>`}
    </section>`;
}

/** Why a line is reported, or removed: then the report goes to the moderators, or the line
 * goes from everyone's log. */
function ReasonForm({ asked, place, done }) {
  const [reason, setReason] = useState("");
  const { kind, line } = asked;
  const submit = async (event) => {
    event.preventDefault();
    try {
      if (kind === "report") {
        await api("/api/reports", { kind: "line", line: line.line, reason, ...place });
        tell(t("web.reported"), "info");
      } else {
        await api("/api/moderation", { action: "remove", line: line.line, reason, ...place });
      }
      done();
    } catch (error) { tell(error.message); }
  };
  return html`<form class="row reason-form" onSubmit=${submit}>
    <p class="quoted"><strong>${line.sender}:</strong> ${line.text}</p>
    <label class="grow">${t(kind === "report" ? "web.report_reason" : "web.remove_reason")}
      <input class="reason" maxlength="300" value=${reason} onInput=${(event) => setReason(event.target.value)} /></label>
    <button type="submit" class="primary">${t(kind === "report" ? "web.report" : "web.remove")}</button>
    <button type="button" onClick=${done}>${t("web.cancel")}</button>
  </form>`;
}
