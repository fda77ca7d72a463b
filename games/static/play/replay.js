// The replay of a finished match: hand by hand, event by event (so card by card), every
// deal shown, and each deal's fairness check: the commitment published before the deal
// against sha256("<salt>:<deck>") of the revealed deck (checked by the server, and again
// here in the browser when it offers crypto.subtle). With the match's review (GET
// .../review, worked out after the match): each person's accuracy, and the mistakes shown
// on the step where they happened. It opens on the table, step by step; each hand's proof
// (the commitment, salt and deck) is one click away, its verdict always in view.
import { api } from "./api.js";
import {
  SUITS,
  cardLabel,
  describeAction,
  describeHandResult,
  partnerOf,
  playerName,
  seatName,
  sortHand,
  suitLabel,
  suitOf,
  teamName,
} from "./cards.js";
import { cardFace, h, replace } from "./ui.js";

const POSITIONS = ["bottom", "left", "top", "right"];

// The replay's own styles (review.css, beside this module): linked once, when first shown.
function linkStyles() {
  const href = new URL("./review.css", import.meta.url).href;
  if (!document.querySelector(`link[rel=stylesheet][href="${href}"]`)) {
    document.head.append(h("link", { rel: "stylesheet", href }));
  }
}

async function sha256Hex(text) {
  if (!(window.crypto && crypto.subtle)) return null;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// Every position of one hand: snapshot 0 is the deal, snapshot i the table after the
// hand's i-th event.
// The table variants (options joker, farmers_hand): a joker upcard counts as the suit
// the dealer named or a fixed one; before the bidding, seats holding three or more nines
// and tens are asked in turn whether to exchange them or, in the option's redeal form,
// to ask for a new deal (their passes are not bids).
const FIXED_SUITS = { clubs: "C", diamonds: "D", hearts: "H", spades: "S" };
const lowCards = (cards) => cards.filter((c) => c !== "JK" && "9T".includes(c[0])).length;

export function handSnapshots(handData, scoresBefore, options = {}) {
  const upcard = handData.kitty[0];
  const farmers = options.farmers_hand
    ? [1, 2, 3, 4].map((k) => (handData.dealer + k) % 4).filter((seat) => lowCards(handData.hands[seat]) >= 3)
    : [];
  const first = {
    upcardSuit: upcard === "JK" ? FIXED_SUITS[options.joker_upcard] || null : suitOf(upcard),
    farmAsked: farmers,
    farmOut: [],
    farmer: null,
    hands: handData.hands.map((cards) => [...cards]),
    kitty: [...handData.kitty],
    upcard: handData.kitty[0],
    upcardFate: "face_up",
    turnedDown: null,
    trump: null,
    maker: null,
    alone: null,
    defenderAlone: null,
    sittingOut: [],
    bids: [],
    passes: 0,
    trick: [],
    trickDone: false,
    tricksWon: [0, 0, 0, 0],
    scores: [...scoresBefore],
    result: null,
    text: `Hand ${handData.hand}: ${seatName(handData.dealer)} deals; the ${cardLabel(handData.kitty[0])} is turned up.`,
    event: handData.events[0],
  };
  const dealer = handData.dealer;
  const snapshots = [first];
  let s = first;
  for (const event of handData.events.slice(1)) {
    s = structuredClone(s);
    s.event = event;
    const action = (event.payload && event.payload.action) || {};
    const seat = event.seat;
    let text = "";
    switch (event.type) {
      case "bid":
        text = describeAction(action, seatName(seat), { upcard: s.upcard, trump: s.trump }, dealer, seat);
        if (action.type === "name_suit") {
          s.upcardSuit = action.suit;
          break;
        }
        if (action.type === "redeal") break;
        if (action.type === "pass" && s.farmAsked.length && !s.trump) {
          s.farmAsked = s.farmAsked.slice(1);  // keeps the hand: no farmer's exchange
          text = `${seatName(seat)} keeps a farmer's hand`;
          break;
        }
        s.bids.push({ seat, ...action });
        if (action.type === "pass") {
          s.passes += 1;
          if (s.passes === 4 && !s.trump) {
            s.turnedDown = s.upcardSuit;
            s.upcardFate = "turned_down";
            text += `; everyone passed, the ${cardLabel(s.upcard)} is turned down`;
          }
        } else if (action.type === "order_up") {
          s.trump = s.upcardSuit;
          s.maker = seat;
          if (action.alone) {
            s.alone = seat;
            s.sittingOut.push(partnerOf(seat));
          }
          if (action.alone && seat === partnerOf(dealer)) {
            s.upcardFate = "stays_in_kitty";
          } else {
            s.upcardFate = "picked_up";
            s.hands[dealer].push(s.upcard);
            s.kitty = s.kitty.filter((c) => c !== s.upcard);
          }
        } else if (action.type === "call") {
          s.trump = action.suit;
          s.maker = seat;
          if (action.alone) {
            s.alone = seat;
            s.sittingOut.push(partnerOf(seat));
          }
        } else if (action.type === "defend_alone") {
          s.defenderAlone = seat;
          s.sittingOut.push(partnerOf(seat));
        }
        break;
      case "farm_exchange":
        s.hands[seat] = s.hands[seat].filter((c) => c !== action.card);
        s.farmOut.push(action.card);
        text = describeAction(action, seatName(seat));
        if (s.farmOut.length === 3) {  // the three cards under the upcard, for the three put out
          const got = s.kitty.slice(1, 4);
          s.hands[seat].push(...got);
          s.kitty = [s.kitty[0], ...s.farmOut, ...s.kitty.slice(4)];
          s.farmer = seat;
          s.farmAsked = [];
          text += `; ${seatName(seat)} takes ${got.map(cardLabel).join(" ")} from under the upcard`;
        }
        break;
      case "discard":
        if (action.card) {
          s.hands[seat] = s.hands[seat].filter((c) => c !== action.card);
          s.kitty.push(action.card);
        }
        text = describeAction(action, seatName(seat));
        break;
      case "card_played":
        if (s.trickDone) {
          s.trick = [];
          s.trickDone = false;
        }
        s.hands[seat] = s.hands[seat].filter((c) => c !== action.card);
        s.trick.push({ seat, card: action.card });
        text = describeAction(action, seatName(seat));
        break;
      case "trick_won":
        s.tricksWon[event.payload.seat] += 1;
        s.trickDone = true;
        text = `${seatName(event.payload.seat)} wins trick ${event.payload.trick}.`;
        break;
      case "hand_scored":
        s.scores = [...event.payload.scores];
        s.result = { type: "hand_scored", ...event.payload };
        text = describeHandResult(s.result);
        break;
      case "hand_thrown_in":
        s.result = { type: "hand_thrown_in", ...event.payload };
        text = describeHandResult(s.result);
        break;
      case "hand_revealed":
        text = "The deck and its salt are revealed: anyone can check the deal.";
        break;
      case "match_finished":
        text = `The match is over: ${teamName(event.payload.winner)} won ${event.payload.scores.join("–")}.`;
        break;
      case "seat_left":
        text = `${seatName(seat ?? event.payload.seat)} left; a computer player takes the seat.`;
        break;
      default:
        text = event.type.replace(/_/g, " ");
    }
    s.text = text.endsWith(".") ? text : `${text}.`;
    snapshots.push(s);
  }
  return snapshots;
}

export function showReplay(root, id) {
  const st = { data: null, handIndex: 0, step: 0, snapshots: [], scoresBefore: [], browserCheck: new Map(), stopped: false, review: null, reviewNote: "Loading the review…" };

  const el = {
    title: h("h1", {}, "Replay"),
    summary: h("p", { "data-testid": "replay-summary" }),
    seats: h("p", { class: "small", "data-testid": "replay-seats" }),
    handSelect: h("select", { id: "replay-hand", "data-testid": "replay-hand", "aria-label": "Hand" }),
    prevHand: h("button", { type: "button", class: "secondary", "data-testid": "replay-prev-hand" }, "◀ Previous hand"),
    nextHand: h("button", { type: "button", class: "secondary", "data-testid": "replay-next-hand" }, "Next hand ▶"),
    // The hand's proof: its verdict in the summary, the hashes one click away.
    fairness: h("details", { class: "fairness", "data-testid": "fairness-panel" }),
    deal: h("div", { class: "deal", "data-testid": "replay-deal" }),
    first: h("button", { type: "button", class: "secondary", "data-testid": "replay-first" }, "« Start"),
    prev: h("button", { type: "button", class: "secondary", "data-testid": "replay-prev" }, "◀ Back"),
    next: h("button", { type: "button", class: "primary", "data-testid": "replay-next" }, "Next ▶"),
    nextCard: h("button", { type: "button", class: "secondary", "data-testid": "replay-next-card" }, "Next card ▶▶"),
    last: h("button", { type: "button", class: "secondary", "data-testid": "replay-last" }, "End »"),
    stepText: h("p", { class: "step", "data-testid": "replay-step", "aria-live": "polite" }),
    // Focused when a mistake in the review is followed (tabindex -1: not a Tab stop).
    mistake: h("div", { class: "mistake", "data-testid": "replay-mistake", hidden: true, role: "note", tabindex: "-1" }),
    review: h("section", { class: "info review", "data-testid": "review" }),
    table: h("div", { class: "table replay-table", "data-testid": "replay-table" }),
    info: h("aside", { class: "info", "data-testid": "replay-info" }),
    allChecks: h("ol", { class: "checks", "data-testid": "fairness-summary" }),
  };

  el.handSelect.addEventListener("change", () => selectHand(Number(el.handSelect.value)));
  el.prevHand.addEventListener("click", () => selectHand(st.handIndex - 1));
  el.nextHand.addEventListener("click", () => selectHand(st.handIndex + 1));
  el.first.addEventListener("click", () => setStep(0));
  el.prev.addEventListener("click", () => setStep(st.step - 1));
  el.next.addEventListener("click", () => setStep(st.step + 1));
  el.last.addEventListener("click", () => setStep(st.snapshots.length - 1));
  el.nextCard.addEventListener("click", () => {
    let i = st.step + 1;
    while (i < st.snapshots.length - 1 && st.snapshots[i].event.type !== "card_played") i += 1;
    setStep(i);
  });
  const onKey = (e) => {
    if (e.target && ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
    if (e.key === "ArrowRight") setStep(st.step + 1);
    if (e.key === "ArrowLeft") setStep(st.step - 1);
  };
  document.addEventListener("keydown", onKey);

  const screen = h("section", { class: "replay", "data-testid": "replay", "data-match-id": id },
    h("div", { class: "panel" },
      el.title,
      el.summary,
      h("div", { class: "row" }, h("label", { for: "replay-hand" }, "Hand"), el.handSelect, el.prevHand, el.nextHand),
      el.fairness,
    ),
    h("div", { class: "board" },
      h("div", { class: "play-area" },
        h("h2", {}, "Step by step"),
        h("div", { class: "row controls" }, el.first, el.prev, el.next, el.nextCard, el.last),
        el.stepText,
        el.mistake,
        el.table,
        h("h2", {}, "The deal"),
        el.deal,
      ),
      h("div", { class: "side" },
        el.info,
        h("section", { class: "info" }, h("h2", {}, "Players"), el.seats),
        el.review,
        h("section", { class: "info" }, h("h2", {}, "Fairness of every deal"), el.allChecks),
      ),
    ),
  );
  linkStyles();
  replace(root, h("p", { class: "loading" }, "Loading the replay…"));

  api("GET", `matches/${id}/replay`)
    .then((data) => {
      if (st.stopped) return;
      st.data = data;
      let scores = [0, 0];
      for (const hand of data.hands) {
        st.scoresBefore.push(scores);
        const scored = hand.events.find((e) => e.type === "hand_scored");
        if (scored) scores = scored.payload.scores;
      }
      replace(root, screen);
      el.title.textContent = `Replay: ${teamName(data.winner_team)} won ${Math.max(...data.scores)}–${Math.min(...data.scores)}`;
      el.summary.textContent = `${data.hands.length} hands, playing to ${data.options.target_score}.`;
      el.seats.textContent = `Seats: ${data.seats.map((s) => `${seatName(s.index)} ${playerName(s)}`).join(", ")}.`;
      replace(el.handSelect, data.hands.map((hand, i) => h("option", { value: i }, `Hand ${hand.hand} (dealt by ${seatName(hand.dealer)})`)));
      renderAllChecks();
      selectHand(0);
      loadReview(0);
      data.hands.forEach((hand, i) => {
        sha256Hex(`${hand.salt}:${hand.deck.join(" ")}`).then((digest) => {
          st.browserCheck.set(i, digest === null ? null : digest === hand.commitment);
          if (st.stopped) return;
          renderAllChecks();
          if (i === st.handIndex) renderFairness();
        });
      });
    })
    .catch((err) => {
      const text = err.code === "match_not_finished" ? "The replay is ready once the match is over." : err.detail;
      replace(root, h("section", { class: "panel narrow" },
        h("p", { class: "error", role: "alert", "data-testid": "error" }, text),
        h("a", { href: `#/match/${id}` }, "Back to the match")));
    });

  // The review is worked out after the match: 202 review_pending until then (poll).
  function loadReview(attempt) {
    api("GET", `matches/${id}/review`)
      .then((review) => {
        if (st.stopped) return;
        if (review.status === "pending") {
          st.reviewNote = "The review of this match is being worked out…";
          if (attempt < 30) setTimeout(() => loadReview(attempt + 1), 2000);
        } else if (review.status === "failed") {
          st.reviewNote = "The review of this match could not be worked out.";
        } else {
          st.review = review;
        }
        renderReview();
        renderStep();
      })
      .catch((err) => {
        st.reviewNote = err.detail;
        if (!st.stopped) renderReview();
      });
  }

  function handMistakes() {
    if (!st.review) return [];
    const hand = st.data.hands[st.handIndex];
    const found = st.review.hands.find((r) => r.hand === hand.hand);
    return found ? found.mistakes : [];
  }

  // Every mistake of the match in the order played: its hand, the step of the replay it
  // is on (as "Step n of m" counts them) and the seat that made it.
  function matchMistakes() {
    const found = [];
    st.data.hands.forEach((hand, index) => {
      const reviewed = st.review.hands.find((r) => r.hand === hand.hand);
      for (const m of reviewed ? reviewed.mistakes : []) {
        const at = hand.events.findIndex((e) => e.seq === m.seq);
        if (at >= 0) found.push({ ...m, hand: hand.hand, handIndex: index, step: at + 1 });
      }
    });
    return found.sort((a, b) => a.seq - b.seq);
  }

  function renderReview() {
    if (!st.review) {
      replace(el.review, h("h2", {}, "Review"), h("p", { class: "small", "data-testid": "review-note" }, st.reviewNote));
      return;
    }
    const mistakes = matchMistakes();
    const counted = st.review.players.reduce((n, p) => n + p.mistakes, 0);
    replace(el.review,
      h("h2", {}, "Review"),
      h("ul", { class: "accuracy" }, st.review.players.map((p) => h("li", { "data-testid": "review-accuracy", "data-seat": String(p.seat) },
        `${seatName(p.seat)} (${p.username}): ${p.accuracy === null ? "no choices" : `${p.accuracy}% accurate`}, `,
        `${p.mistakes} mistake${p.mistakes === 1 ? "" : "s"}, about ${p.points_lost.toFixed(1)} points given up`))),
      h("p", { class: "small" }, "Each decision is valued from what that seat knew then; a mistake gave up at least ",
        `${st.review.threshold} points against the best choice.`),
      h("h3", { "data-testid": "review-mistakes-title" }, mistakes.length
        ? `${mistakes.length} mistake${mistakes.length === 1 ? "" : "s"}, where they are`
        : "No mistakes"),
      counted > mistakes.length
        ? h("p", { class: "small", "data-testid": "review-biggest" }, "The biggest of each hand are listed.")
        : null,
      mistakes.length
        ? h("ul", { class: "mistakes", "data-testid": "review-mistakes" }, mistakes.map((m) => h("li", {},
          h("button", {
            type: "button",
            class: "link goto",
            "data-testid": "review-goto",
            "data-hand": String(m.hand),
            "data-seq": String(m.seq),
            "aria-current": m.handIndex === st.handIndex ? "true" : null,
            onclick: () => goToMistake(m.handIndex, m.seq),
          },
          h("span", { class: "where" }, `Hand ${m.hand}, step ${m.step}`),
          h("span", { class: "what" }, `${seatName(m.seat)}: ${m.sentence}`)))))
        : null,
    );
  }

  // The step of a mistake in the review, in its hand. The focus goes to the mistake's
  // note, brought into view: on a phone the review is below the table, and the step
  // changed out of sight; a screen reader reads the note.
  function goToMistake(handIndex, seq) {
    if (handIndex !== st.handIndex) selectHand(handIndex);
    setStep(stepOfSeq(seq));
    if (!el.mistake.hidden) el.mistake.focus();
  }

  function stepOfSeq(seq) {
    const i = st.snapshots.findIndex((s) => s.event.seq === seq);
    return i < 0 ? st.step : i;
  }

  // A hand passes when the server's check passed and, where the browser can hash,
  // the browser's too.
  function verdict(i) {
    const hand = st.data.hands[i];
    const browser = st.browserCheck.get(i);
    return hand.commitment_verified && browser !== false;
  }

  function selectHand(i) {
    if (!st.data || i < 0 || i >= st.data.hands.length) return;
    st.handIndex = i;
    st.snapshots = handSnapshots(st.data.hands[i], st.scoresBefore[i], st.data.options || {});
    el.handSelect.value = String(i);
    el.prevHand.disabled = i === 0;
    el.nextHand.disabled = i === st.data.hands.length - 1;
    renderFairness();
    renderDeal();
    renderReview();
    setStep(0);
  }

  function setStep(step) {
    if (!st.snapshots.length) return;
    st.step = Math.max(0, Math.min(step, st.snapshots.length - 1));
    el.first.disabled = el.prev.disabled = st.step === 0;
    el.next.disabled = el.nextCard.disabled = el.last.disabled = st.step === st.snapshots.length - 1;
    renderStep();
  }

  function renderAllChecks() {
    replace(el.allChecks, st.data.hands.map((hand, i) => {
      const ok = verdict(i);
      return h("li", { "data-testid": "fairness-item", "data-verified": String(ok) },
        h("button", { type: "button", class: "link", onclick: () => selectHand(i) }, `Hand ${hand.hand}`),
        " ",
        h("span", { class: `badge ${ok ? "pass" : "fail"}` }, ok ? "✔ fairness check passed" : "✘ fairness check failed"),
      );
    }));
  }

  function renderFairness() {
    const i = st.handIndex;
    const hand = st.data.hands[i];
    const ok = verdict(i);
    const browser = st.browserCheck.get(i);
    const browserText = browser === undefined ? "checking in this browser…"
      : browser === null ? "this browser cannot hash here (it needs https); the server's check is shown"
        : browser ? "recomputed in this browser: it matches" : "recomputed in this browser: it does NOT match";
    el.fairness.setAttribute("data-verified", String(ok));
    if (!ok) el.fairness.open = true;  // a failed check shows its proof unasked
    replace(el.fairness,
      h("summary", { "data-testid": "fairness-proof-summary" },
        h("span", { class: `badge ${ok ? "pass" : "fail"}`, "data-testid": "fairness", "data-verified": String(ok) },
          ok ? "✔ Fairness check passed" : "✘ Fairness check FAILED"),
        h("span", { class: "small" }, ` ${browserText} · `),
        h("span", { class: "proof-toggle" }, "The proof")),
      h("p", { class: "small" },
        "Before the first bid, the service published a commitment to the shuffled deck; after the hand it revealed the deck and a salt. ",
        "The check: sha256(salt + \":\" + deck) equals the commitment. ",
        `Server: ${hand.commitment_verified ? "matches" : "does NOT match"}; ${browserText}.`),
      h("dl", { class: "hashes" },
        h("dt", {}, "Commitment"), h("dd", { class: "hash", "data-testid": "commitment" }, hand.commitment),
        h("dt", {}, "Salt"), h("dd", { class: "hash" }, hand.salt),
        h("dt", {}, "Deck"), h("dd", { class: "hash" }, hand.deck.join(" ")),
      ),
    );
  }

  function renderDeal() {
    const hand = st.data.hands[st.handIndex];
    replace(el.deal,
      [0, 1, 2, 3].map((seat) => h("div", { class: "deal-seat", "data-testid": `deal-${seatName(seat).toLowerCase()}` },
        h("div", { class: "seat-name" }, `${seatName(seat)}${seat === hand.dealer ? " (dealer)" : ""}`),
        h("div", { class: "cards" }, hand.hands[seat].map((c) => cardFace(c))))),
      h("div", { class: "deal-seat", "data-testid": "deal-kitty" },
        h("div", { class: "seat-name" }, "Kitty (first card turned up)"),
        h("div", { class: "cards" }, hand.kitty.map((c, j) => cardFace(c, { class: j === 0 ? "upcard-mark" : "" })))),
    );
  }

  function renderStep() {
    const s = st.snapshots[st.step];
    const hand = st.data.hands[st.handIndex];
    el.stepText.setAttribute("data-step", String(st.step));
    el.stepText.setAttribute("data-steps", String(st.snapshots.length));
    el.stepText.setAttribute("data-event", s.event.type);
    el.stepText.textContent = `Step ${st.step + 1} of ${st.snapshots.length}: ${s.text}`;
    const mistake = handMistakes().find((m) => m.seq === s.event.seq);
    el.mistake.hidden = !mistake;
    replace(el.mistake, mistake ? [h("strong", {}, `Mistake by ${seatName(mistake.seat)}: `), mistake.sentence,
      h("span", { class: "small" }, ` (with all cards shown: ${mistake.shown_loss.toFixed(1)} points)`)] : []);
    if (mistake) el.mistake.setAttribute("data-seq", String(mistake.seq));
    const seats = [0, 1, 2, 3].map((seat) => h("div", {
      class: `seat pos-${POSITIONS[seat]}${s.sittingOut.includes(seat) ? " out" : ""}${s.event.seat === seat ? " turn" : ""}${mistake && mistake.seat === seat ? " erred" : ""}`,
      "data-testid": `replay-seat-${seatName(seat).toLowerCase()}`,
    },
      h("div", { class: "seat-name" }, seatName(seat), seat === hand.dealer ? " · dealer" : "", s.maker === seat ? (s.alone === seat ? " · maker, alone" : " · maker") : "", s.defenderAlone === seat ? " · defends alone" : ""),
      h("div", { class: "player" }, playerName(st.data.seats[seat])),
      h("div", { class: "cards" }, sortHand(s.hands[seat], s.trump).map((c) => cardFace(c))),
      h("div", { class: "small" }, `${s.tricksWon[seat]} trick${s.tricksWon[seat] === 1 ? "" : "s"}${s.sittingOut.includes(seat) ? " · sits out" : ""}`),
    ));
    const center = h("div", { class: "center" });
    if (s.trick.length) {
      center.append(h("div", { class: `trick${s.trickDone ? " faded" : ""}`, "data-testid": "replay-trick", "data-count": String(s.trick.length) },
        s.trick.map(({ seat, card }) => h("div", { class: `played pos-${POSITIONS[seat]}` }, cardFace(card, { testid: "played-card" })))));
    } else if (!s.trump) {
      center.append(h("div", { class: "upcard" }, h("div", { class: "small" }, s.turnedDown ? "Turned down" : "Turned up"), cardFace(s.upcard)));
    }
    replace(el.table, seats, center);

    const rows = [
      h("dt", {}, "Score"), h("dd", { "data-testid": "replay-score" }, `South & North ${s.scores[0]} · West & East ${s.scores[1]}`),
      h("dt", {}, "Trump"), h("dd", {}, s.trump ? h("span", { class: SUITS[s.trump].red ? "red" : "" }, `${suitLabel(s.trump)}, called by ${seatName(s.maker)}${s.alone !== null ? " (alone)" : ""}`) : "not yet"),
      h("dt", {}, "Tricks"), h("dd", {}, `South & North ${s.tricksWon[0] + s.tricksWon[2]} · West & East ${s.tricksWon[1] + s.tricksWon[3]}`),
      h("dt", {}, "Bidding"), h("dd", {}, s.bids.length ? h("ol", { class: "bids" }, s.bids.map((b) => h("li", {}, describeAction(b, seatName(b.seat), { upcard: s.upcard }, hand.dealer, b.seat)))) : "—"),
      h("dt", {}, "Kitty"), h("dd", {}, s.kitty.map((c) => cardFace(c))),
    ];
    if (s.result) rows.push(h("dt", {}, "Result"), h("dd", {}, describeHandResult(s.result)));
    replace(el.info, h("h2", {}, `Hand ${hand.hand}`), h("dl", {}, rows), h("p", {}, h("a", { href: "#/" }, "Lobby")));
  }

  return () => {
    st.stopped = true;
    document.removeEventListener("keydown", onKey);
  };
}
