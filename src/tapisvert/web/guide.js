// A first game that teaches: a one-screen "How to play" card that opens by itself at a person's
// first table of each game, and a hint at their first decisions of each kind, in the words of the
// game's own texts (texts/guide.*.toml in its package). Both use only what the seat's own view
// and legal moves show; what the person has seen is remembered in this browser, per game.
import { html, useEffect, useRef, useState } from "./ui.js";
import { has, t } from "./i18n.js";
import { changed } from "./store.js";

const HINTS_PER_KIND = 3;
const MOST_STEPS = 6;

/** What this browser remembers of a game's guide: the card seen, hints off, hints shown. */
function remembered(game) {
  try {
    return { seen: false, hints: true, counts: {}, ...JSON.parse(localStorage.getItem(`guide.${game}`) ?? "{}") };
  } catch {
    return { seen: false, hints: true, counts: {} };
  }
}

function remember(game, change) {
  localStorage.setItem(`guide.${game}`, JSON.stringify({ ...remembered(game), ...change }));
  changed();
}

/** The "How to play" button and its card, for a game whose package has a guide (one added
 * from outside may have none: it then has neither). */
export function HowToPlay(props) {
  return has(`${props.game}.guide.goal`) ? html`<${GuideCard} ...${props} />` : null;
}

/** `seated`: the card opens by itself the first time. Closed, the focus goes back to where it
 * was, or to the hand (`focusHand`) if nowhere. */
function GuideCard({ game, seated, focusHand }) {
  const dialog = useRef(null);
  const opener = useRef(null);
  const open = () => {
    opener.current = document.activeElement;
    dialog.current.showModal();
    remember(game, { seen: true });
  };
  useEffect(() => {
    if (seated && !remembered(game).seen) open();
  }, [game, seated]);
  const closed = () => {
    const before = opener.current;
    if (before && before !== document.body && before.isConnected) before.focus();
    else focusHand();
  };
  const steps = [];
  for (let number = 1; number <= MOST_STEPS && has(`${game}.guide.step${number}`); number++) {
    steps.push(t(`${game}.guide.step${number}`));
  }
  const hints = remembered(game).hints;
  return html`
    <button id="how-to-play" onClick=${open}>${t("web.how_to_play")}</button>
    <dialog ref=${dialog} class="how-to-play" id="how-to-play-card" aria-labelledby="how-to-play-heading" onClose=${closed}>
      <div class="row rules-head">
        <h2 id="how-to-play-heading">${t("web.how_to_play_title", { game: t(`${game}.name`) })}</h2>
        <button class="primary" id="how-to-play-close" onClick=${() => dialog.current.close()}>${t("web.close")}</button>
      </div>
      <p><strong>${t("web.guide_goal")}:</strong> ${t(`${game}.guide.goal`)}</p>
      <h3>${t(`${game}.guide.turn_heading`)}</h3>
      <ol>${steps.map((step) => html`<li key=${step}>${step}</li>`)}</ol>
      <p><strong>${t("web.guide_wins")}:</strong> ${t(`${game}.guide.wins`)}</p>
      <p class="hint">${hints ? t("web.guide_hints_on") : t("web.guide_hints_off")} ${t("web.guide_rules")}</p>
      ${hints ? null : html`<button id="hints-again" onClick=${() => remember(game, { hints: true, counts: {} })}>
        ${t("web.hints_again")}</button>`}
    </dialog>`;
}

/** The decisions a hint was shown for ("table:seq"), so that a frame drawn again counts once. */
const shown = new Set();

/** A hint at one of the person's first decisions of a kind (`kind`, from the board's own
 * `decision`), while they have hints on; "Got it" puts this one away. Never takes the focus. */
export function Hint({ game, kind, table, seq }) {
  const [dismissed, setDismissed] = useState(null);
  const key = `${table}:${seq}`;
  const guide = remembered(game);
  const words = `${game}.guide.hint.${kind}`;
  if (!kind || !guide.hints || dismissed === key || !has(`${words}.title`)) return null;
  if (!shown.has(key)) {
    const count = guide.counts[kind] ?? 0;
    if (count >= HINTS_PER_KIND) return null;
    shown.add(key);
    localStorage.setItem(`guide.${game}`, JSON.stringify({ ...guide, counts: { ...guide.counts, [kind]: count + 1 } }));
  }
  return html`<aside class="guide-hint" id="hint" data-kind=${kind} aria-labelledby="hint-title">
    <h2 class="small" id="hint-title">${t("web.hint", { decision: t(`${words}.title`) })}</h2>
    <p>${t(`${words}.text`)}</p>
    <div class="row">
      <button id="hint-ok" onClick=${() => setDismissed(key)}>${t("web.hint_got_it")}</button>
      <button id="hint-off" onClick=${() => remember(game, { hints: false })}>${t("web.hint_no_more")}</button>
    </div>
  </aside>`;
}
