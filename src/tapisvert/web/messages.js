// Friends, private messages and ignores: the messages panel (`#messages`, a conversation at
// `#messages=NAME`), the friends list of the lobby, the buttons of a profile, and a notice in the
// page when a message or a friend request arrives. The server sends a `social` frame on hello
// and after every change, and each `message` to every connection of its sender and recipient.
import { html, useEffect, useLayoutEffect, useRef, useState } from "./ui.js";
import { language, t } from "./i18n.js";
import { api, changed, frameHandlers, state, tell } from "./store.js";
import { PlayerLink } from "./community.js";

const NOTHING = { friends: [], asked_by: [], asking: [], ignored: [], unread: 0 };
// `frames` counts the `social` frames: an answer to a request made before the last one is older.
const social = { info: NOTHING, conversation: null, with: null, correspondents: null, frames: 0 };

/** A new hello: the server sends a `social` frame next only if it says something. */
frameHandlers.welcome = () => {
  social.info = NOTHING;
  social.correspondents = null;
};

frameHandlers.social = (frame) => {
  social.frames += 1;
  const before = social.info;
  social.info = frame;
  for (const name of frame.asked_by) {
    if (!before.asked_by.includes(name)) tell(t("web.social.friend_request", { name }), "info");
  }
};

frameHandlers.message = (frame) => {
  const other = frame.sender === state.user ? frame.recipient : frame.sender;
  if (social.with === other && social.conversation) {
    if (!social.conversation.some((one) => one.message === frame.message)) social.conversation.push(frame);
    if (frame.sender === other) load(other);  // read as it arrives: the panel is open on it
  } else if (frame.sender !== state.user && !frame.history) {
    social.info = { ...social.info, unread: social.info.unread + 1 };
    tell(frame.table ? t("web.social.invitation", { name: frame.sender, table: frame.table })
      : t("web.social.new_message", { name: frame.sender, text: frame.text }), "info");
  }
  social.correspondents = null;
};

/** Load the conversation with `name` (the server marks what they sent as read). */
async function load(name) {
  try {
    const messages = await api(`/api/messages/${encodeURIComponent(name)}`);
    if (social.with === name) social.conversation = messages;
  } catch (error) {
    tell(error.message);
  }
  changed();
}

/** Do something social over HTTP; `done` says it in words. */
async function act(method, path, body, done) {
  try {
    const answer = await api(path, body, method);
    if (done) tell(done(answer), "info");
  } catch (error) {
    tell(error.message);
  }
  changed();
}

export const befriend = (name) => act("POST", "/api/friends", { name },
  (answer) => t(answer.friends ? "web.social.now_friends" : "web.social.friend_asked", { name: answer.name }));
export const unfriend = (name) => act("DELETE", `/api/friends/${encodeURIComponent(name)}`);
export const ignore = (name) => act("POST", "/api/ignores", { name },
  (answer) => t("web.social.now_ignored", { name: answer.name }));
export const unignore = (name) => act("DELETE", `/api/ignores/${encodeURIComponent(name)}`);

/** The link to the panel in the page's bar, with the unread count. */
export function MessagesLink() {
  const unread = social.info?.unread ?? 0;
  return html`<a class="nav messages-link" id="messages-link" href="#messages">${t("web.social.messages")}
    ${unread ? html` <span class="badge">${unread}<span class="visually-hidden"> (${t("web.social.unread", { count: unread })})</span></span>` : null}</a>`;
}

/** A friend's name, whether they are online and at which tables. */
function FriendLine({ friend, actions = true }) {
  return html`<li key=${friend.name} class="friend">
    <${PlayerLink} name=${friend.name} />
    <span class=${`chip ${friend.online ? "online" : ""}`}>${friend.online ? t("web.social.online") : t("web.social.offline")}</span>
    ${friend.tables.map((table) => html` <a key=${table} class="chip" href=${`#table=${table}`}>${t("web.social.at_tables", { tables: table })}</a>`)}
    ${actions ? html`<a class="button" href=${`#messages=${encodeURIComponent(friend.name)}`}>${t("web.social.write")}</a>
      <button onClick=${() => unfriend(friend.name)}>${t("web.social.remove_friend")}</button>` : null}
  </li>`;
}

/** Ask for the `social` frame again: friends come and go without one being sent. */
async function refresh() {
  const frames = social.frames;
  try {
    const info = await api("/api/social");
    if (social.frames !== frames) return;  // a frame came meanwhile: it says what is newer
    social.info = info;
    changed();
  } catch { /* signed out meanwhile: the next hello says it */ }
}

/** The lobby's friends list: who is online, and at which table (refreshed every 15 s). */
export function Friends() {
  useEffect(() => {
    const timer = setInterval(() => { if (social.info.friends.length) refresh(); }, 15_000);
    return () => clearInterval(timer);
  }, []);
  const info = social.info;
  if (!info.friends.length) return null;
  return html`<section class="panel" id="friends" aria-labelledby="friends-heading">
    <h2 class="small" id="friends-heading">${t("web.social.friends")}</h2>
    <ul class="friends">${info.friends.map((friend) => html`<${FriendLine} key=${friend.name} friend=${friend} actions=${false} />`)}</ul>
  </section>`;
}

/** At an open table: a button to invite each friend not seated there (a message that they
 * receive now or at their next sign-in). */
export function InviteFriends({ info }) {
  const seated = info.seats.map((seat) => seat.name);
  const friends = social.info.friends.filter((friend) => !seated.includes(friend.name));
  if (!friends.length) return null;
  const invite = (name) => act("POST", "/api/messages", { to: name, table: info.table },
    () => t("web.social.invited", { name, table: info.table }));
  return html`<div class="row invite-friends" id="invite-friends">
    ${friends.map((friend) => html`<button key=${friend.name} onClick=${() => invite(friend.name)}>
      ${t("web.social.invite_friend", { name: friend.name })}</button>`)}
  </div>`;
}

/** The buttons of someone else's profile: befriend or unfriend, write, ignore or stop. */
export function ProfileActions({ player }) {
  const info = social.info;
  if (!state.token || player.name === state.user || player.bot) return null;
  const ignored = info.ignored.includes(player.name);
  const friend = info.friends.some((one) => one.name === player.name);
  const account = !player.guest && !state.guest;
  return html`<div class="row profile-actions">
    ${account && !ignored ? (friend
      ? html`<button id="unfriend" onClick=${() => unfriend(player.name)}>${t("web.social.remove_friend")}</button>`
      : html`<button id="befriend" onClick=${() => befriend(player.name)}>${t("web.social.add_friend")}</button>`) : null}
    ${account && !ignored ? html`<a class="button" id="write" href=${`#messages=${encodeURIComponent(player.name)}`}>${t("web.social.write")}</a>` : null}
    ${ignored ? html`<button id="unignore" onClick=${() => unignore(player.name)}>${t("web.social.unignore")}</button>`
      : html`<button id="ignore" onClick=${() => ignore(player.name)}>${t("web.social.ignore")}</button>`}
  </div>`;
}

function when(seconds) {
  return new Date(seconds * 1000).toLocaleString(language(), { dateStyle: "short", timeStyle: "short" });
}

/** The messages panel: a conversation when one is named, else friends, requests,
 * conversations and ignored people. */
export function MessagesPanel({ name }) {
  const [, setVersion] = useState(0);
  useEffect(() => {
    social.with = name;
    social.conversation = null;
    if (name) load(name);
    else if (!state.guest) refresh();
    return () => { social.with = null; social.conversation = null; };
  }, [name]);
  useEffect(() => {
    if (name || social.correspondents || state.guest) return;
    api("/api/messages").then((found) => { social.correspondents = found; setVersion((v) => v + 1); },
      (error) => tell(error.message));
  });
  const info = social.info;
  return html`<section class="panel messages" id="messages" aria-labelledby="messages-heading">
    <div class="row"><a class="button" href=${name ? "#messages" : "#"} id="back">${name ? t("web.social.all_messages") : t("web.back")}</a>
      <h1 id="messages-heading">${name ? t("web.social.conversation_with", { name }) : t("web.social.messages")}</h1></div>
    ${name ? html`<${Conversation} name=${name} />` : html`
      ${state.guest ? html`<p class="hint">${t("web.social.account_only")}</p>` : null}
      ${state.guest ? null : html`<${Overview} info=${info} />`}
      <${Ignored} names=${info.ignored} />`}
  </section>`;
}

function Overview({ info }) {
  const list = social.correspondents;
  return html`
    <h2 class="small">${t("web.social.conversations")}</h2>
    ${list === null ? html`<p role="status">${t("web.loading")}</p>` : list.length ? html`<ul class="conversations" id="conversations">
      ${list.map((one) => html`<li key=${one.name} class="row">
        <a href=${`#messages=${encodeURIComponent(one.name)}`}>${one.name}</a>
        ${one.unread ? html`<span class="badge">${t("web.social.unread", { count: one.unread })}</span>` : null}
        <span class="hint">${when(one.last)}</span></li>`)}</ul>`
      : html`<p>${t("web.social.no_conversations")}</p>`}
    ${info.asked_by.length ? html`<h2 class="small">${t("web.social.asked_you")}</h2>
      <ul class="friends" id="asked-by">${info.asked_by.map((other) => html`<li key=${other} class="row">
        <${PlayerLink} name=${other} />
        <button class="primary" onClick=${() => befriend(other)}>${t("web.social.accept")}</button>
        <button onClick=${() => unfriend(other)}>${t("web.social.decline")}</button></li>`)}</ul>` : null}
    <h2 class="small">${t("web.social.friends")}</h2>
    ${info.friends.length ? html`<ul class="friends" id="friend-list">${info.friends.map((friend) => html`<${FriendLine} key=${friend.name} friend=${friend} />`)}</ul>`
      : html`<p>${t("web.social.no_friends")}</p>`}
    ${info.asking.length ? html`<h2 class="small">${t("web.social.you_asked")}</h2>
      <ul class="friends">${info.asking.map((other) => html`<li key=${other} class="row">
        <${PlayerLink} name=${other} />
        <button onClick=${() => unfriend(other)}>${t("web.social.withdraw")}</button></li>`)}</ul>` : null}`;
}

function Ignored({ names }) {
  return html`<h2 class="small">${t("web.social.ignored")}</h2>
    ${names.length ? html`<ul class="friends" id="ignored">${names.map((other) => html`<li key=${other} class="row">
      <${PlayerLink} name=${other} />
      <button onClick=${() => unignore(other)}>${t("web.social.unignore")}</button></li>`)}</ul>`
      : html`<p>${t("web.social.no_ignored")}</p>`}`;
}

function Conversation({ name }) {
  const [text, setText] = useState("");
  const box = useRef(null);
  useLayoutEffect(() => { if (box.current) box.current.scrollTop = box.current.scrollHeight; });
  const post = async (event) => {
    event.preventDefault();
    if (!text.trim()) return;
    try {
      const sent = await api("/api/messages", { to: name, text: text.trim() });
      if (social.conversation && !social.conversation.some((one) => one.message === sent.message)) {
        social.conversation.push(sent);
      }
      setText("");
    } catch (error) {
      tell(error.message);
    }
    changed();
  };
  const messages = social.conversation;
  return html`
    <div class="log conversation" id="conversation" ref=${box} role="log" tabindex="0" aria-label=${t("web.social.write_to", { name })}>
      ${messages === null ? html`<p role="status">${t("web.loading")}</p>` : messages.map((one) => html`<div key=${one.message}
        class=${one.sender === state.user ? "mine" : "theirs"}>
        <span class="who">${one.sender}</span> <span class="hint">${when(one.sent_at)}</span><br />
        ${one.table ? html`<a href=${`#join=${one.table}`}>${one.sender === state.user
          ? t("web.social.invitation_mine", { name: one.recipient, table: one.table })
          : t("web.social.invitation", { name: one.sender, table: one.table })}</a>` : one.text}</div>`)}
    </div>
    <form class="row say" onSubmit=${post}>
      <label class="grow"><span class="visually-hidden">${t("web.social.write_to", { name })}</span>
        <input id="message-text" maxlength="500" placeholder=${t("web.social.write_to", { name })} value=${text}
          onInput=${(event) => setText(event.target.value)} /></label>
      <button type="submit" class="primary" id="send-message">${t("web.social.send")}</button>
    </form>`;
}
