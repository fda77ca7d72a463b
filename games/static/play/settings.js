// The player's settings, kept on this device (localStorage): the deck's colours and the
// sound. The pace of the cards has its own module (pace.js, "euchre.pace").
//   euchre.deck   "two" (the default: hearts and diamonds red, clubs and spades black)
//                 or "four" (hearts red, diamonds blue, clubs green, spades black)
//   euchre.sound  "on" or "off" (the default: no sound until it is turned on)

const KEYS = { deck: "euchre.deck", sound: "euchre.sound" };

function read(key) {
  try {
    return localStorage.getItem(key);
  } catch (err) {
    return null;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch (err) {
    // A browser that keeps nothing: the setting holds for this page only.
  }
}

export function fourColourDeck() {
  return read(KEYS.deck) === "four";
}

export function setFourColourDeck(on) {
  write(KEYS.deck, on ? "four" : "two");
  applyDeck();
}

// The deck's colours are a class on <html>, so every card on every screen follows it.
export function applyDeck() {
  document.documentElement.classList.toggle("deck-four", fourColourDeck());
}

export function soundOn() {
  return read(KEYS.sound) === "on";
}

export function setSoundOn(on) {
  write(KEYS.sound, on ? "on" : "off");
}
