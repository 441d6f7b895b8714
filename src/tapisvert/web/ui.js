// The rendering kit of the web app: Preact's keyed diffing with htm's tagged templates, so that
// an incoming frame changes only what changed and never what a person is typing or choosing.
import { h, render } from "preact";
import htm from "htm";

export { h, render };
export { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
export const html = htm.bind(h);
