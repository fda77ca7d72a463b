// Cards, seats and actions in words. Cards are the API's two-letter form: rank then
// suit, ranks 9 T J Q K A, suits C D H S ("JH" is the jack of hearts); "JK" is the
// joker (the joker option: the highest trump, the "best bower").

export const SUITS = {
  C: { symbol: "♣", name: "clubs", red: false },
  D: { symbol: "♦", name: "diamonds", red: true },
  H: { symbol: "♥", name: "hearts", red: true },
  S: { symbol: "♠", name: "spades", red: false },
};
const RANKS = {
  9: { label: "9", name: "9" },
  T: { label: "10", name: "10" },
  J: { label: "J", name: "jack" },
  Q: { label: "Q", name: "queen" },
  K: { label: "K", name: "king" },
  A: { label: "A", name: "ace" },
};
const RANK_ORDER = "9TJQKA";
const SAME_COLOUR = { C: "S", S: "C", D: "H", H: "D" };

export const SEAT_NAMES = ["south", "west", "north", "east"];
export const LEVELS = ["random", "easy", "medium", "hard"];

export const JOKER = "JK";
export const rankOf = (card) => card[0];
export const suitOf = (card) => card[1];
export const isRed = (card) => card !== JOKER && SUITS[suitOf(card)].red;
export const cardLabel = (card) => (card === JOKER ? "Joker" : RANKS[rankOf(card)].label + SUITS[suitOf(card)].symbol);
export const cardName = (card) => (card === JOKER ? "joker (the best bower)" : `${RANKS[rankOf(card)].name} of ${SUITS[suitOf(card)].name}`);
export const suitLabel = (suit) => `${SUITS[suit].symbol} ${SUITS[suit].name}`;
export const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
export const seatName = (seat) => capital(SEAT_NAMES[seat]);
export const teamOf = (seat) => seat % 2;
export const partnerOf = (seat) => (seat + 2) % 4;
export const teamName = (team) => (team === 0 ? "South & North" : "West & East");

// The suit a card counts as: the left bower (the jack of trump's colour) is a trump.
export function effectiveSuit(card, trump) {
  if (card === JOKER) return trump || "S";  // always a trump (sorted first before trump is made)
  if (trump && rankOf(card) === "J" && suitOf(card) === SAME_COLOUR[trump]) return trump;
  return suitOf(card);
}

function power(card, trump) {
  if (card === JOKER) return 21;
  if (trump && rankOf(card) === "J") {
    if (suitOf(card) === trump) return 20;
    if (suitOf(card) === SAME_COLOUR[trump]) return 19;
  }
  return RANK_ORDER.indexOf(rankOf(card));
}

// Trump first, then the other suits alternating colours; high to low within a suit.
export function sortHand(cards, trump) {
  const lead = trump || "S";
  const order = [lead, ...(SUITS[lead].red ? ["C", "D", "S", "H"] : ["D", "C", "H", "S"])];
  const rankSuit = (suit) => order.indexOf(suit);
  return [...cards].sort((a, b) => {
    const sa = rankSuit(effectiveSuit(a, trump));
    const sb = rankSuit(effectiveSuit(b, trump));
    return sa !== sb ? sa - sb : power(b, trump) - power(a, trump);
  });
}

// A seat as people see it: the person's name, or a computer player and its level.
export function playerName(seatInfo) {
  if (!seatInfo) return "";
  if (seatInfo.kind === "computer") return `Computer (${seatInfo.level || "medium"})`;
  if (seatInfo.kind === "open") return "Open seat";
  return seatInfo.username || "A player";
}

// An action (the API's JSON form) in words, from the point of view of `who`
// ("You" or a seat's name); `hand` (the view's) gives the upcard and whether trump is
// made: a redeal before it is a farmer's hand asking for a new deal (the option's
// redeal form), after it no ace, no face, no trump.
export function describeAction(action, who = "You", hand = null, dealer = null, seat = null) {
  const you = who === "You";
  const alone = action.alone ? (you ? " and go alone" : " and goes alone") : "";
  switch (action.type) {
    case "pass":
      return `${who} ${you ? "pass" : "passes"}`;
    case "order_up": {
      const card = hand && hand.upcard ? ` the ${cardLabel(hand.upcard)}` : "";
      if (seat !== null && seat === dealer) return `${who} ${you ? "pick" : "picks"} up${card}${alone}`;
      return `${who} ${you ? "order" : "orders"} up${card}${alone}`;
    }
    case "call":
      return `${who} ${you ? "call" : "calls"} ${suitLabel(action.suit)}${alone}`;
    case "defend_alone":
      return `${who} ${you ? "defend" : "defends"} alone`;
    case "discard":
      return action.card ? `${who} ${you ? "discard" : "discards"} the ${cardLabel(action.card)}` : `${who} ${you ? "discard" : "discards"}`;
    case "play":
      return `${who} ${you ? "play" : "plays"} the ${cardLabel(action.card)}`;
    case "name_suit":
      return `${who} ${you ? "name" : "names"} ${suitLabel(action.suit)} for the joker turned up`;
    case "farm":
      return action.card
        ? `${who} ${you ? "put" : "puts"} the ${cardLabel(action.card)} under the upcard (a farmer's hand)`
        : `${who} ${you ? "put" : "puts"} a card face down under the upcard (a farmer's hand)`;
    case "redeal":
      if (beforeTrump(hand)) return `${who} ${you ? "ask" : "asks"} for a new deal (a farmer's hand)`;
      return `${who} ${you ? "call" : "calls"} a redeal: no ace, no face, no trump`;
    default:
      return `${who}: ${action.type}`;
  }
}

// Trump is not made yet in this hand (a view's hand, or a replay's with `trump`).
function beforeTrump(hand) {
  return Boolean(hand) && "trump" in hand && !hand.trump;
}

// The label of a bidding button for the person on turn.
export function actionButtonLabel(action, view) {
  const hand = view.hand || {};
  const alone = action.alone ? " and go alone" : "";
  switch (action.type) {
    case "pass":
      if (view.phase === "farm" && view.legal_actions.some((a) => a.type === "redeal")) return "Keep my hand (no new deal)";
      if (view.phase === "farm") return "Keep my hand (no farmer's exchange)";
      if (view.phase === "redeal") return "Play the hand (no redeal)";
      return view.phase === "defend" ? "Pass (defend together)" : "Pass";
    case "order_up": {
      const verb = view.dealer === view.seat ? "Pick up" : "Order up";
      return `${verb} the ${cardLabel(hand.upcard)}${alone}`;
    }
    case "call":
      return `Call ${suitLabel(action.suit)}${alone}`;
    case "defend_alone":
      return "Defend alone";
    case "name_suit":
      return `Name ${suitLabel(action.suit)}`;
    case "farm":
      return `Put out the ${cardLabel(action.card)}`;
    case "redeal":
      if (view.phase === "farm") return "Ask for a new deal (a farmer's hand)";
      return "Call a redeal (no ace, no face, no trump)";
    default:
      return describeAction(action);
  }
}

export const HAND_RESULTS = {
  made: "made it",
  march: "marched (all five tricks)",
  lone_march: "marched alone (all five tricks)",
  euchred: "were euchred",
  euchred_by_lone_defender: "were euchred by a lone defender",
};

// A hand_scored / hand_thrown_in outcome in a sentence.
export function describeHandResult(result) {
  if (!result) return "";
  if (result.type === "hand_thrown_in" && result.reason === "no_ace_no_face_no_trump") {
    const shown = (result.cards || []).map(cardLabel).join(" ");
    return `Hand ${result.hand} was thrown in: ${seatName(result.seat)} called a redeal, holding no ace, ` +
      `no face card and no trump (${shown}). Nobody scores; the next player deals.`;
  }
  if (result.type === "hand_thrown_in" && result.reason === "farmers_hand") {
    const shown = (result.cards || []).map(cardLabel).join(" ");
    return `Hand ${result.hand} was thrown in: ${seatName(result.seat)} asked for a new deal with a ` +
      `farmer's hand (${shown}). Nobody scores; the next player deals.`;
  }
  if (result.type === "hand_thrown_in") return `Hand ${result.hand} was thrown in: everyone passed twice.`;
  const makers = teamName(result.makers);
  const scorer = teamName(result.team);
  return `Hand ${result.hand}: the makers (${makers}) ${HAND_RESULTS[result.result] || result.result} ` +
    `with ${result.makers_tricks} trick${result.makers_tricks === 1 ? "" : "s"}; ${scorer} +${result.points}. ` +
    `Score ${result.scores[0]}–${result.scores[1]}.`;
}
