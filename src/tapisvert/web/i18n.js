// The texts of the page, from the server's catalogues, in the person's language.
const texts = { table: {}, language: "en" };

export async function loadTexts(language) {
  const response = await fetch(`/api/catalogue/${language}`);
  texts.table = await response.json();
  texts.language = language;
  document.documentElement.lang = language;
}

export function language() {
  return texts.language;
}

/*
 * While a move is put into words for the log (`recorded`), `t` writes each text as its key and
 * arguments between markers, which joins and templates keep: `say` writes them out again in
 * the page's language of the moment, so a log told in French reads in English after a switch.
 */
let recording = false;
const MARKED = /\u0001([^\u0002]*)\u0002([^\u0003]*)\u0003/g;
const PLURAL = "#plural";
const DECIMAL = "#decimal";

function marked(key, args) {
  return `\u0001${key}\u0002${JSON.stringify(args)}\u0003`;  // inner markers come out escaped
}

/** What `describe` returns, its words kept as keys and arguments for `say`. */
export function recorded(describe) {
  recording = true;
  try {
    return describe();
  } finally {
    recording = false;
  }
}

/** A text of `recorded`, in the page's language now (any other text as it is). */
export function say(text) {
  return text.replace(MARKED, (_, key, json) => {
    const args = Object.fromEntries(Object.entries(JSON.parse(json)).map(([name, value]) => [name, sayValue(value)]));
    if (key === DECIMAL) return decimal(args.value);
    if (key.endsWith(PLURAL)) return tn(key.slice(0, -PLURAL.length), args.count, args);
    return t(key, args);
  });
}

function sayValue(value) {
  if (typeof value === "string") return say(value);
  return Array.isArray(value) ? value.map(sayValue) : value;
}

/** The text of `key` with `{name}` placeholders filled; a missing key shows as itself. */
export function t(key, args = {}) {
  if (recording) return marked(key, args);
  const template = texts.table[key];
  if (template === undefined) {
    console.warn(`missing catalogue key ${key}`);
    return key;
  }
  return template.replace(/\{(\w+)\}/g, (_, name) => String(args[name] ?? ""));
}

/** The plural form of `key` for `count` (`key.one` or `key.other`, as the language says). */
export function tn(key, count, args = {}) {
  if (recording) return marked(`${key}${PLURAL}`, { count, ...args });
  const form = new Intl.PluralRules(texts.language).select(count) === "one" ? "one" : "other";
  return t(`${key}.${form}`, { count, ...args });
}

/** A number with one decimal, written as the language writes it ("2.5", "2,5"). */
export function decimal(value) {
  if (recording) return marked(DECIMAL, { value });
  return value.toLocaleString(texts.language, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

export function has(key) {
  return key in texts.table;
}
