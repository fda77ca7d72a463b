// The pace at which the table shows what happened: how long each card stays before the
// next one lands, how long a finished trick stays (with its winner marked) before the
// table is cleared, and how long the cards take to move. A setting kept in this
// browser's localStorage ("euchre.pace"): one of the names below, or, for tests and
// people who want their own, JSON such as {"card": 100, "hold": 300, "move": 0}.

export const PACES = {
  normal: { label: "Normal (½ s a card, 1.2 s a trick)", card: 500, hold: 1200, move: 250 },
  slow: { label: "Slow (1 s a card, 2.5 s a trick)", card: 1000, hold: 2500, move: 300 },
  fast: { label: "Fast (¼ s a card, ½ s a trick)", card: 250, hold: 500, move: 150 },
};
const KEY = "euchre.pace";

function clamp(value, fallback) {
  const n = Number(value);
  return Number.isFinite(n) ? Math.max(0, Math.min(10000, n)) : fallback;
}

// {name, card, hold, move} in milliseconds; "move" is 0 when the person prefers less motion.
export function loadPace() {
  let stored = null;
  try {
    stored = localStorage.getItem(KEY);
  } catch (err) {
    stored = null;
  }
  let pace = { name: "normal", ...PACES.normal };
  if (stored && PACES[stored]) {
    pace = { name: stored, ...PACES[stored] };
  } else if (stored) {
    try {
      const custom = JSON.parse(stored);
      pace = {
        name: "custom",
        label: "Your own",
        card: clamp(custom.card, PACES.normal.card),
        hold: clamp(custom.hold, PACES.normal.hold),
        move: clamp(custom.move, PACES.normal.move),
      };
    } catch (err) {
      // Not a name nor JSON: the default.
    }
  }
  if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) {
    pace.move = 0;
  }
  return pace;
}

export function savePace(name) {
  try {
    localStorage.setItem(KEY, name);
  } catch (err) {
    // A browser that keeps nothing: the pace holds for this page only.
  }
}
