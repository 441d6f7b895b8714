// A log of what was said and what happened, with a line to type in. What the person types is
// their own state: no frame from the server touches it.
import { html, useLayoutEffect, useRef, useState } from "./ui.js";
import { t } from "./i18n.js";
import { send } from "./store.js";

export function ChatPanel({ place, lines, title }) {
  const [text, setText] = useState("");
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
  const id = place.table ? "table-chat" : "room-chat";
  return html`
    <section class="panel chat" aria-label=${title}>
      <h2 class="small">${title}</h2>
      <div class="log" ref=${box} role="log" tabindex="0" aria-label=${title} onScroll=${(event) => {
        const element = event.currentTarget;
        stuck.current = element.scrollTop + element.clientHeight >= element.scrollHeight - 8;
      }}>
        ${lines.map((line) => html`<div key=${line.key} class=${line.kind}>
          ${line.kind === "chat" ? html`<span class="who">${line.sender}: </span>` : null}${line.text}</div>`)}
      </div>
      <form class="row say" onSubmit=${post}>
        <label class="grow"><span class="visually-hidden">${t("web.chat_hint")}</span>
          <input id=${id} placeholder=${t("web.chat_hint")} maxlength="500" value=${text}
            onInput=${(event) => setText(event.target.value)} /></label>
        <button type="submit">${t("web.send")}</button>
      </form>
    </section>`;
}
