// The rules of each game, written in the project and rendered by the server, in a dialog.
import { html, useEffect, useRef, useState } from "./ui.js";
import { language, t } from "./i18n.js";
import { api, currentTable, state, tell } from "./store.js";

export function RulesButton() {
  const dialog = useRef(null);
  const [game, setGame] = useState(null);
  const [page, setPage] = useState(null);
  const open = () => {
    const table = state.tables[currentTable()];
    setGame(table?.game ?? game ?? state.games[0].name);
    dialog.current.showModal();
  };
  useEffect(() => {
    if (!game) return;
    api(`/api/rules/${game}?language=${language()}`).then(setPage, (error) => tell(error.message));
  }, [game, language()]);
  return html`
    <button id="rules" onClick=${open}>${t("web.rules_title")}</button>
    <dialog ref=${dialog} class="rules" aria-labelledby="rules-heading">
      <div class="row rules-head">
        <h2 id="rules-heading">${t("web.rules_title")}</h2>
        <label>${t("web.game")} <select value=${game ?? ""} onChange=${(event) => setGame(event.target.value)}>
          ${state.games.map((spec) => html`<option value=${spec.name}>${t(`${spec.name}.name`)}</option>`)}
        </select></label>
        <button class="primary" onClick=${() => dialog.current.close()}>${t("web.close")}</button>
      </div>
      <article dangerouslySetInnerHTML=${{ __html: page?.html ?? "" }}></article>
    </dialog>`;
}
