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

/** The text of `key` with `{name}` placeholders filled; a missing key shows as itself. */
export function t(key, args = {}) {
  const template = texts.table[key];
  if (template === undefined) {
    console.warn(`missing catalogue key ${key}`);
    return key;
  }
  return template.replace(/\{(\w+)\}/g, (_, name) => String(args[name] ?? ""));
}

/** The plural form of `key` for `count` (`key.one` or `key.other`, as the language says). */
export function tn(key, count, args = {}) {
  const form = new Intl.PluralRules(texts.language).select(count) === "one" ? "one" : "other";
  return t(`${key}.${form}`, { count, ...args });
}

/** A number with one decimal, written as the language writes it ("2.5", "2,5"). */
export function decimal(value) {
  return value.toLocaleString(texts.language, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

export function has(key) {
  return key in texts.table;
}
