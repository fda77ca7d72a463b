// A few DOM helpers: h() builds elements, cardFace() draws a card.
import { cardLabel, cardName, isRed } from "./cards.js";

// h("button", {class: "x", "data-testid": "y", onclick: fn, disabled: true}, "text", child, ...)
// Strings become text (never HTML); null, false and undefined children are skipped.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = value;
    } else if (key === "value") {
      el.value = value;
    } else if (key === "checked") {
      el.checked = Boolean(value);
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// A suit drawn from the page's own symbols (index.html: no font, no fetch).
export function suitIcon(suit, cls = "pip") {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", cls);
  svg.setAttribute("viewBox", "0 0 100 100");
  // Small until the stylesheet sizes it (an SVG with no size is 300 x 150).
  svg.setAttribute("width", "1em");
  svg.setAttribute("height", "1em");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const use = document.createElementNS(ns, "use");
  use.setAttribute("href", `#suit-${suit}`);
  svg.append(use);
  return svg;
}

// What a card shows, as on a printed card: the rank and suit in the top-left corner and
// upside down in the bottom-right one; in the middle the suit large (9, 10, ace: the
// ace's larger still), or a framed court (jack, queen, king) with its letter. The suit's
// colour is the deck's (two or four colours, a setting: class suit-X on the card).
export function cardInside(card) {
  if (card === "JK") {  // the joker (option joker): no rank or suit, a star
    return [
      h("span", { class: "corner tl", "aria-hidden": "true" }, h("span", { class: "rank" }, "JK"), h("span", { class: "suit" }, "★")),
      h("span", { class: "face court joker", "aria-hidden": "true" }, suitIcon("JK")),
      h("span", { class: "corner br", "aria-hidden": "true", "data-rank": "JK", "data-suit": "★" }),
    ];
  }
  const label = cardLabel(card);
  const rank = label.slice(0, -1);
  const suit = label.slice(-1);
  const court = "JQK".includes(card[0]);
  // The corner upside down and a court's letter are drawn by CSS (from data-*), so that
  // the card's visible text is what it says once: "Q♦", as its name starts.
  return [
    h("span", { class: "corner tl", "aria-hidden": "true" }, h("span", { class: "rank" }, rank), h("span", { class: "suit" }, suit)),
    h("span", { class: `face${court ? " court" : ""}${card[0] === "A" ? " ace" : ""}`, "aria-hidden": "true" },
      court ? h("span", { class: "court-letter", "data-letter": rank }) : null,
      suitIcon(card[1])),
    h("span", { class: "corner br", "aria-hidden": "true", "data-rank": rank, "data-suit": suit }),
  ];
}

// The classes of a card's face: its suit (for the deck's colours), red or not.
export function cardClasses(card) {
  if (card === "JK") return "suit-JK";
  return `suit-${card[1]}${isRed(card) ? " red" : ""}`;
}

// A card face (not interactive); its name says what it shows ("Q♦, queen of diamonds").
export function cardFace(card, extra = {}) {
  return h(
    "span",
    {
      class: `card ${cardClasses(card)}${extra.class ? ` ${extra.class}` : ""}`,
      "data-card": card,
      "data-testid": extra.testid || "card-face",
      title: cardName(card),
      "aria-label": `${cardLabel(card)}, ${cardName(card)}`,
      role: "img",
    },
    cardInside(card),
  );
}

// A card face down: the back of the deck (a seat's cards, the kitty).
export function cardBack(extra = {}) {
  return h("span", { class: `back${extra.class ? ` ${extra.class}` : ""}`, "aria-hidden": "true" });
}

export function errorBox(testid = "error") {
  return h("p", { class: "error", role: "alert", "data-testid": testid, hidden: true });
}

export function showError(box, err) {
  if (!err) {
    box.hidden = true;
    box.textContent = "";
    box.removeAttribute("data-code");
    return;
  }
  box.hidden = false;
  box.textContent = err.detail || err.message || String(err);
  box.setAttribute("data-code", err.code || "error");
}
