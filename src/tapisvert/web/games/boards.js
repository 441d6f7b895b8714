// One board per game, drawn from a seat's observation. Only legal moves are offered:
// cards that may be played are buttons, the other legal moves are grouped by verb.

export function renderBoard(game, view, seat, legal, act, kit) {
  const draw = BOARDS[game] ?? (() => []);
  const offered = new Set();
  const parts = draw(view, seat, legal, act, kit, offered);
  const rest = legal.filter((action) => !offered.has(action));
  return kit.h("div", {}, ...parts, rest.length ? actionBar(rest, act, kit) : null);
}

export function scoreSheet(game, view, names, { t, h }) {
  const past = view.past_rounds ?? view.past_deals ?? view.past_games ?? [];
  const head = h("tr", {}, h("th", {}, ""), ...names.map((name) => h("th", {}, name)));
  const rows = past.map((round) => h("tr", {},
    h("th", {}, String(round.round_number ?? round.deal_number ?? round.game_number ?? "")),
    ...round.points.map((points, index) => h("td", {},
      round.bids ? `${round.bids[index]}/${round.tricks[index]} → ${points}` : String(points)))));
  const total = h("tr", {}, h("th", {}, t("web.scores")),
    ...(view.scores ?? []).map((score) => h("td", {}, h("strong", {}, String(score)))));
  return h("table", { class: "sheet" }, head, ...rows, total);
}

function actionBar(actions, act, { t, h }) {
  const groups = new Map();
  for (const action of actions) {
    const verb = action.split(" ")[0];
    if (!groups.has(verb)) groups.set(verb, []);
    groups.get(verb).push(action);
  }
  return h("div", { class: "actions", id: "actions" }, ...[...groups].map(([verb, list]) =>
    h("div", { class: "actions" }, h("span", { class: "verb" }, t(`web.verb.${verb}`)),
      ...list.map((action) => h("button", { "data-action": action, onclick: () => act(action) },
        action.split(" ").slice(1).join(" ") || t(`web.verb.${verb}`))))));
}

function card(text, { h }, action, act, offered, extra = null) {
  const colour = text ? text[0] : "";
  if (action) {
    offered.add(action);
    return h("button", { class: `card ${colour}`, "data-action": action, onclick: () => act(action) }, text, extra);
  }
  return h("span", { class: `card ${colour}` }, text ?? "", extra);
}

function section(title, { h }, ...content) {
  return h("section", {}, h("span", { class: "label" }, title), h("div", { class: "row" }, ...content));
}

function playerOf(view, index) {
  return (view.leader + index) % view.players;
}

const BOARDS = {
  wizard(view, seat, legal, act, kit, offered) {
    const { t } = kit;
    const can = new Set(legal);
    const trick = view.trick.map((text, index) =>
      kit.h("span", {}, card(text, kit), kit.h("span", { class: "label" }, kit.names[playerOf(view, index)])));
    const table = view.bids.map((bid, index) => `${kit.names[index]}: ${t("web.hand_size", { count: view.hand_sizes[index] })} · ${t("web.bids")} ${bid ?? "–"} · ${t("web.tricks")} ${view.tricks_won[index]}`);
    return [
      kit.h("div", { class: "row" },
        kit.h("strong", {}, t("web.round", { number: view.round_index + 1, rounds: view.rounds })),
        kit.h("span", {}, `${t("web.trump")}: `), view.trump_card ? card(view.trump_card, kit) : null,
        kit.h("strong", {}, view.trump ?? t("web.no_trump"))),
      section(table.join("  |  "), kit),
      section(t("web.trick"), kit, ...trick),
      seat === null ? null : section(t("web.hand"), kit, ...view.hand.map((text) =>
        card(text, kit, can.has(`play ${text}`) ? `play ${text}` : null, act, offered))),
    ];
  },

  luz(view, seat, legal, act, kit, offered) {
    const { t } = kit;
    const can = new Set(legal);
    const hands = view.hands.map((hand, owner) => section(
      `${kit.names[owner]} — ${t("web.bids")} ${formatBet(view.bets[owner])} · ${t("web.tricks")} ${view.tricks_won[owner]}`, kit,
      ...hand.map((text, slot) => {
        if (text === null) return null;
        const mine = owner === seat;
        const maybe = mine && view.knowledge[slot]
          ? kit.h("span", { class: "maybe" }, view.knowledge[slot].join(" ")) : null;
        const action = mine && can.has(`play ${slot}`) ? `play ${slot}` : null;
        return card(text, kit, action, act, offered, maybe);
      })));
    const trick = view.trick.map((play) =>
      kit.h("span", {}, card(play.card, kit), kit.h("span", { class: "label" }, kit.names[play.seat])));
    return [section(t("web.trick"), kit, ...trick), ...hands];
  },

  abluxxen(view, seat, legal, act, kit, offered) {
    const { t } = kit;
    const can = new Set(legal);
    const display = view.display.map((slot, index) => {
      const action = can.has(`draw display ${index + 1}`) ? `draw display ${index + 1}` : null;
      return slot.length ? card(slot.join(" "), kit, action, act, offered) : null;
    });
    const stacks = view.stacks.map((sets, owner) => kit.h("tr", {},
      kit.h("th", {}, kit.names[owner]),
      kit.h("td", {}, t("web.hand_size", { count: view.hand_sizes[owner] })),
      kit.h("td", {}, view.known_in_hand[owner].length ? t("web.known", { cards: view.known_in_hand[owner].join(" ") }) : ""),
      kit.h("td", {}, sets.length
        ? [`${sets.slice(0, -1).join(" ")} `, kit.h("strong", { class: "top", title: t("web.top_set") }, sets[sets.length - 1])]
        : "–")));
    const series = view.games === 1 ? null : kit.h("p", { class: "label", id: "series" }, view.games === null
      ? t("abluxxen.game_to_target", { number: view.game_number, target: view.series_target })
      : t("abluxxen.game_of", { number: view.game_number, games: view.games }));
    return [
      series,
      section(t("web.display"), kit, ...display,
        can.has("draw pile") ? card(t("web.pile", { count: view.pile_size }), kit, "draw pile", act, offered)
          : kit.h("span", {}, t("web.pile", { count: view.pile_size }))),
      view.played ? section(`${kit.names[view.active]} → ${view.victim === null ? "" : kit.names[view.victim]}`, kit, card(view.played, kit)) : null,
      section(t("web.stacks"), kit, kit.h("table", { class: "sheet stacks" }, ...stacks)),
      seat === null ? null : section(t("web.hand"), kit, ...view.hand.map((text) => card(text, kit))),
    ];
  },

  fzzzt(view, seat, legal, act, kit, offered) {
    const { t } = kit;
    const owned = view.owned.map((cards, owner) => {
      const bid = view.bid_sizes[owner] === null ? "" : ` · ${t("web.bids")} ${view.bid_sizes[owner]}`;
      return `${kit.names[owner]}: ${t("web.hand_size", { count: view.hand_sizes[owner] })}${bid} · ${cards.join(" ")}`;
    });
    return [
      section(t("web.belt"), kit, ...view.belt.map((text) => card(text, kit))),
      section(t("web.owned"), kit, owned.join("  |  ")),
      seat === null ? null : section(t("web.hand"), kit, ...pickToBid(view.hand, legal, act, kit, offered)),
    ];
  },
};

/** The cards picked for a bid, kept while the position stays the same: a board redrawn for a
 * chat line or a seat's news keeps them. */
const picking = { position: "", picked: new Set() };

/** A sealed bid is any set of cards from the hand: the player picks cards, then bids them;
 * the button carries the move only while the picked cards make a legal bid. */
function pickToBid(hand, legal, act, kit, offered) {
  const bids = new Map();
  for (const action of legal.filter((move) => move.startsWith("bid "))) {
    bids.set(action.split(" ").slice(1).sort().join(" "), action);
    offered.add(action);
  }
  if (!bids.size) return hand.map((text) => card(text, kit));
  const position = `${kit.seq}:${hand.join(" ")}`;
  if (picking.position !== position) Object.assign(picking, { position, picked: new Set() });
  const { picked } = picking;
  const button = kit.h("button", { id: "bid", class: "primary", disabled: true }, kit.t("web.verb.bid"));
  button.addEventListener("click", () => button.dataset.action && act(button.dataset.action));
  const update = () => {
    const action = bids.get([...picked].sort().join(" "));
    button.disabled = !action;
    if (action) button.dataset.action = action;
    else delete button.dataset.action;
  };
  const cards = hand.map((text) => {
    const pick = kit.h("button", { class: `card ${text[0]}`, "data-pick": text }, text);
    const show = () => {
      pick.classList.toggle("picked", picked.has(text));
      pick.setAttribute("aria-pressed", String(picked.has(text)));
    };
    pick.addEventListener("click", () => {
      if (picked.has(text)) picked.delete(text);
      else picked.add(text);
      show();
      update();
    });
    show();
    return pick;
  });
  update();
  return [...cards, button];
}

function formatBet(bet) {
  if (!bet) return "–";
  return `${bet[0]}${bet[1] ? "+" : ""}`;
}
