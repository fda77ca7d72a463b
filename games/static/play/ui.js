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

// What a card shows: the rank and suit in a corner, and the suit large in the middle.
// Red suits also carry an inner frame, so that they are told apart without colour.
export function cardInside(card) {
  if (card === "JK") {  // the joker (option joker): no rank or suit, a star
    return [
      h("span", { class: "corner", "aria-hidden": "true" }, h("span", { class: "rank" }, "JK"), h("span", { class: "suit" }, "★")),
      h("span", { class: "pip joker", "aria-hidden": "true" }, "★"),
    ];
  }
  const label = cardLabel(card);
  const rank = label.slice(0, -1);
  const suit = label.slice(-1);
  return [
    h("span", { class: "corner", "aria-hidden": "true" }, h("span", { class: "rank" }, rank), h("span", { class: "suit" }, suit)),
    h("span", { class: "pip", "aria-hidden": "true" }, suit),
  ];
}

// A card face (not interactive); its name says what it shows ("Q♦, queen of diamonds").
export function cardFace(card, extra = {}) {
  return h(
    "span",
    {
      class: `card${isRed(card) ? " red" : ""}${extra.class ? ` ${extra.class}` : ""}`,
      "data-card": card,
      "data-testid": extra.testid || "card-face",
      title: cardName(card),
      "aria-label": `${cardLabel(card)}, ${cardName(card)}`,
      role: "img",
    },
    cardInside(card),
  );
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
