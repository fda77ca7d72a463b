// The table: your cards (illegal ones dimmed, a tap on one shows the engine's reason),
// the bidding, the trick, the score, hints, the turn timer and the end of the match.
// GET matches/{id} is the truth; each event on the stream is a cue to fetch it again.
import { api, followMatch } from "./api.js";
import {
  SUITS,
  actionButtonLabel,
  cardLabel,
  cardName,
  describeAction,
  describeHandResult,
  isRed,
  playerName,
  seatName,
  sortHand,
  suitLabel,
  teamName,
  teamOf,
} from "./cards.js";
import { cardFace, h, replace } from "./ui.js";

const POLL_MS = 2000;
// After a turn deadline has passed on this clock, ask for the view once more if nothing
// has come on the stream by then (the server puts a computer player in at the deadline).
const LATE_REFRESH_MS = 2500;
const RETURN_ATTEMPTS = 5;
const POSITIONS = ["bottom", "left", "top", "right"]; // you, your left, partner, your right

const PHASES = {
  deal: "Between hands",
  bid1: "Bidding, round one",
  discard: "The dealer's discard",
  bid2: "Bidding, round two",
  defend: "Defending alone?",
  play: "The play",
  finished: "The match is over",
};

function sentence(text) {
  if (!text) return "";
  const trimmed = text.trim();
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1) + (/[.!?]$/.test(trimmed) ? "" : ".");
}

export function showMatch(root, id) {
  const st = {
    id,
    body: null,
    bodyText: "", // the body as JSON, to tell a new view from the same one again
    busy: false,
    stopped: false,
    refreshing: false,
    again: false,
    stopStream: null,
    pollTimer: null,
    polling: false, // no stream here at all: poll for good
    hint: null, // {seq, status, action, explanation} or {seq, error}
    message: null, // {code, detail, kind}
    clockTimer: null, // the countdown's next tick
    lateTimer: null, // a refresh once the deadline is past
    lateFor: null, // the deadline that refresh is for
  };

  const el = {
    status: h("p", { class: "status", "data-testid": "status", role: "status" }),
    // Its own live region, off: a screen reader would otherwise read it every second.
    countdown: h("span", { class: "countdown", "data-testid": "turn-countdown", "aria-live": "off", hidden: true }),
    away: h("div", { class: "away-notice", "data-testid": "away-notice", role: "alert", hidden: true }),
    returnButton: h("button", { type: "button", class: "primary", "data-testid": "return-button" }, "I'm back"),
    banner: h("div", { class: "banner", "data-testid": "match-over", hidden: true }),
    invite: h("div", { class: "invite", "data-testid": "invite", hidden: true }),
    table: h("div", { class: "table", "data-testid": "table" }),
    hand: h("div", { class: "hand", "data-testid": "hand", role: "group", "aria-label": "Your cards" }),
    actions: h("div", { class: "actions", "data-testid": "actions" }),
    message: h("p", { class: "reason", role: "alert", "data-testid": "reason", hidden: true }),
    hint: h("div", { class: "hint", "data-testid": "hint", hidden: true, "aria-live": "polite" }),
    hintButton: h("button", { type: "button", class: "secondary", "data-testid": "hint-button", hidden: true }, "Hint"),
    info: h("aside", { class: "info", "data-testid": "info" }),
  };
  el.hintButton.addEventListener("click", askHint);
  el.returnButton.addEventListener("click", comeBack);

  const screen = h("section", { class: "match", id: "match", "data-testid": "match", "data-match-id": id, "data-seq": "", "data-busy": "false" },
    el.status,
    el.away,
    el.banner,
    el.invite,
    h("div", { class: "board" },
      h("div", { class: "play-area" },
        el.table,
        h("h2", { class: "visually-hidden" }, "Your cards"),
        el.hand,
        el.message,
        h("div", { class: "row" }, el.actions, el.hintButton),
        el.hint,
      ),
      el.info,
    ),
  );
  replace(root, screen);

  // ---------------------------------------------------------------- loading and following

  function accept(body) {
    if (st.body && body.seq < st.body.seq) return; // an older answer arriving late
    const text = JSON.stringify(body);
    if (st.body && text === st.bodyText) {
      // The same view again (several events, one answer): keep the table as it is, so
      // that a button under the pointer or with the focus is not replaced.
      renderMessage();
      follow();
      return;
    }
    const moved = !st.body || body.seq !== st.body.seq;
    st.body = body;
    st.bodyText = text;
    if (moved && st.hint && st.hint.seq !== body.seq) st.hint = null;
    render();
    follow();
  }

  async function refresh() {
    if (st.refreshing) {
      st.again = true;
      return;
    }
    st.refreshing = true;
    try {
      do {
        st.again = false;
        const body = await api("GET", `matches/${id}`);
        if (st.stopped) return;
        if (st.message && st.message.code === "network_error") st.message = null; // back again
        accept(body);
      } while (st.again && !st.stopped);
    } catch (err) {
      if (!st.body) {
        const text = err.status === 404 ? "There is no such match, or you have no seat at it." : err.detail;
        replace(root, h("section", { class: "panel narrow" }, h("p", { class: "error", role: "alert", "data-testid": "error" }, text), h("a", { href: "#/" }, "Back to the lobby")));
        st.stopped = true;
      } else {
        setMessage(err, "error");
      }
    } finally {
      st.refreshing = false;
    }
  }

  function follow() {
    const finished = st.body.status === "finished";
    if (finished) {
      stopFollowing();
      return;
    }
    if (st.stopStream || st.polling) return;
    st.stopStream = followMatch(id, st.body.seq, {
      onEvent: (event) => {
        if (!st.body || event.seq > st.body.seq) refresh();
      },
      // Who is at the table changes without an event: look again now and then.
      onKeepAlive: () => refresh(),
      onUnavailable: () => {
        // No stream here (e.g. a WSGI-only deployment): ask for the view every few seconds.
        st.stopStream = null;
        st.polling = true;
        startPolling();
      },
      onConnected: (up) => {
        // While the stream is down, poll; once it is back it replays what was missed.
        if (up) stopPolling();
        else startPolling();
      },
    });
  }

  function startPolling() {
    if (st.stopped || st.pollTimer) return;
    st.pollTimer = setInterval(() => {
      if (!st.busy && st.body && st.body.status !== "finished") refresh();
    }, POLL_MS);
  }

  function stopPolling() {
    if (st.pollTimer) clearInterval(st.pollTimer);
    st.pollTimer = null;
  }

  function stopFollowing() {
    if (st.stopStream) st.stopStream();
    st.stopStream = null;
    stopPolling();
  }

  // ---------------------------------------------------------------- acting

  async function post(action) {
    if (st.busy || !st.body) return null;
    setBusy(true);
    try {
      const body = await api("POST", `matches/${id}/actions`, { ...action, expected_seq: st.body.seq });
      st.message = null;
      accept(body);
      return body;
    } catch (err) {
      if (err.code === "stale_sequence") {
        setMessage({ detail: "The table moved on before your move arrived; here it is now.", code: err.code }, "info");
        await refresh();
      } else {
        setMessage(err, err.status === 422 ? "illegal" : "error");
        if (err.status === 409) refresh();
      }
      return null;
    } finally {
      setBusy(false);
    }
  }

  function onCard(card, legal) {
    if (legal) {
      post(legal);
      return;
    }
    // Not a legal move: send it anyway, the engine refuses it (changing nothing) and
    // says why, e.g. that the left bower counts as trump.
    const view = st.body.view;
    const type = view.phase === "discard" && view.turn === view.seat ? "discard" : "play";
    post({ type, card });
  }

  async function askHint() {
    if (!st.body) return;
    const seq = st.body.seq;
    st.hint = { seq, status: "pending" };
    renderHint();
    try {
      let hint = await api("POST", `matches/${id}/hints`);
      const deadline = Date.now() + 30000;
      while (hint.status === "pending" && Date.now() < deadline && !st.stopped) {
        await new Promise((resolve) => setTimeout(resolve, 400));
        hint = await api("GET", `hints/${hint.id}`);
      }
      if (st.hint && st.hint.seq === seq) st.hint = { seq, ...hint };
    } catch (err) {
      if (st.hint && st.hint.seq === seq) st.hint = { seq, status: "failed", explanation: err.detail };
    }
    renderHint();
  }

  // Take the seat back from the computer player that the turn timer put in. Asking twice
  // does no harm (the second answer is 409 not_away), so a failure of the service or the
  // network is tried again a few times.
  async function comeBack() {
    if (st.busy || !st.body) return;
    setBusy(true);
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const body = await api("POST", `matches/${id}/return`);
          st.message = null;
          accept(body);
          return;
        } catch (err) {
          const transient = err.status === 0 || err.status >= 500;
          if (transient && attempt < RETURN_ATTEMPTS && !st.stopped) {
            await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
            continue;
          }
          // not_away: already back (acting, in another tab say, takes the seat back too).
          if (err.code !== "not_away") setMessage(err, "error");
          await refresh();
          return;
        }
      }
    } finally {
      setBusy(false);
    }
  }

  function setBusy(busy) {
    st.busy = busy;
    screen.setAttribute("data-busy", String(busy));
    screen.querySelectorAll("button[data-action], button[data-testid=card]").forEach((b) => {
      b.disabled = busy;
    });
    el.returnButton.disabled = busy;
  }

  function setMessage(err, kind) {
    st.message = err ? { code: err.code || "error", detail: err.detail || String(err), kind } : null;
    renderMessage();
  }

  // ---------------------------------------------------------------- drawing

  function seatInfo(seat) {
    return st.body.seats[seat];
  }

  function amAway() {
    const body = st.body;
    const mine = body.seats[body.view.seat];
    return Boolean(mine && mine.away);
  }

  function who(seat) {
    const view = st.body.view;
    if (seat === view.seat) return "You";
    return seatName(seat);
  }

  function render() {
    const body = st.body;
    const view = body.view;
    screen.setAttribute("data-seq", String(body.seq));
    screen.setAttribute("data-status", body.status);
    screen.setAttribute("data-phase", view.phase);
    screen.setAttribute("data-seat", String(view.seat));
    screen.setAttribute("data-dealer", String(view.dealer));
    screen.setAttribute("data-my-turn", String(view.turn === view.seat && body.status === "active"));
    screen.setAttribute("data-away", String(amAway() && body.status === "active"));
    screen.setAttribute("data-turn-deadline", body.turn_deadline || "");
    renderStatus();
    renderCountdown();
    renderAway();
    renderBanner();
    renderInvite();
    renderTable();
    renderHand();
    renderActions();
    renderInfo();
    renderMessage();
    renderHint();
    setBusy(st.busy);
  }

  function renderStatus() {
    const body = st.body;
    const view = body.view;
    const hand = view.hand;
    let text;
    if (body.status === "waiting") {
      text = "Waiting for players to take the open seats.";
    } else if (body.status === "finished") {
      text = `The match is over: ${teamName(body.winner_team)} won.`;
    } else if (view.turn === null || view.turn === undefined) {
      text = PHASES[view.phase] || view.phase;
    } else if (view.turn === view.seat && amAway()) {
      text = "A computer player is taking your turn…";
    } else if (view.turn === view.seat) {
      const upcard = hand && hand.upcard ? cardLabel(hand.upcard) : "";
      const dealer = view.dealer === view.seat;
      const prompts = {
        bid1: dealer ? `Your turn: pass, or pick up the ${upcard} to make ${SUITS[hand.upcard[1]].name} trump.` : `Your turn: pass, or order up the ${upcard} to make ${SUITS[hand.upcard[1]].name} trump.`,
        bid2: view.legal_actions.some((a) => a.type === "pass") ? "Your turn: pass, or name trump (not the turned-down suit)." : "Stick the dealer: you must name trump.",
        discard: `You took the ${upcard}: choose a card to discard.`,
        defend: "Your turn: defend alone, or pass and defend with your partner.",
        play: hand && hand.current_trick.length ? "Your turn: play a card (follow suit if you can)." : "Your turn: lead a card.",
      };
      text = prompts[view.phase] || "Your turn.";
    } else {
      const waiting = seatInfo(view.turn);
      text = `${PHASES[view.phase]}: waiting for ${seatName(view.turn)} (${playerName(waiting)})…`;
    }
    replace(el.status, text, " ", el.countdown);
    el.status.classList.toggle("your-turn", view.turn === view.seat && body.status === "active");
  }

  // The turn timer: "12 s left" while a person's deadline runs, on this browser's clock
  // (never more than the match's turn_seconds, should this clock be behind the server's).
  function deadlineTime() {
    const body = st.body;
    if (!body || body.status !== "active" || !body.turn_deadline) return null;
    const time = Date.parse(body.turn_deadline);
    return Number.isFinite(time) ? time : null;
  }

  function renderCountdown() {
    clearTimeout(st.clockTimer);
    st.clockTimer = null;
    const deadline = deadlineTime();
    if (deadline === null || st.stopped) {
      el.countdown.hidden = true;
      el.countdown.textContent = "";
      el.countdown.removeAttribute("data-seconds");
      return;
    }
    const left = deadline - Date.now();
    const seconds = Math.max(0, Math.min(st.body.turn_seconds || Infinity, Math.ceil(left / 1000)));
    el.countdown.hidden = false;
    el.countdown.setAttribute("data-seconds", String(seconds));
    el.countdown.classList.toggle("urgent", seconds <= 5);
    el.countdown.textContent = seconds > 0 ? `${seconds} s left` : "time is up";
    if (seconds > 0) {
      // The next tick when the whole number of seconds left changes.
      const wait = left - (Math.ceil(left / 1000) - 1) * 1000;
      st.clockTimer = setTimeout(renderCountdown, Math.min(1000, Math.max(50, wait + 20)));
    } else if (st.lateFor !== st.body.turn_deadline) {
      st.lateFor = st.body.turn_deadline;
      clearTimeout(st.lateTimer);
      const seq = st.body.seq;
      st.lateTimer = setTimeout(() => {
        if (!st.stopped && st.body && st.body.seq === seq) refresh();
      }, LATE_REFRESH_MS);
    }
  }

  function renderAway() {
    const away = amAway() && st.body.status === "active";
    el.away.hidden = !away;
    if (!away) return;
    replace(el.away,
      h("p", {},
        h("strong", {}, "Your time ran out: a computer player is playing for you."),
        " It plays your turns until you come back.",
      ),
      el.returnButton,
    );
  }

  function renderBanner() {
    const body = st.body;
    if (body.status !== "finished") {
      el.banner.hidden = true;
      return;
    }
    const you = body.you;
    const won = you !== null && you !== undefined && teamOf(you) === body.winner_team;
    el.banner.hidden = false;
    el.banner.setAttribute("data-winner-team", String(body.winner_team));
    replace(el.banner,
      h("h2", {}, you === null || you === undefined ? `${teamName(body.winner_team)} won` : won ? "You won the match!" : "You lost the match."),
      h("p", { "data-testid": "final-score" }, `${teamName(body.winner_team)} won ${Math.max(...body.scores)}–${Math.min(...body.scores)} after ${body.hands_played} hands.`),
      amAway() ? h("p", { "data-testid": "away-to-the-end" }, "Your time ran out, and a computer player played for you to the end.") : null,
      h("p", {},
        h("a", { href: `#/replay/${id}`, class: "button primary", "data-testid": "replay-link" }, "Watch the replay"),
        " ",
        h("a", { href: "#/", class: "button secondary" }, "New match"),
      ),
    );
  }

  function renderInvite() {
    const body = st.body;
    const open = body.seats.filter((s) => s.kind === "open");
    if (body.status !== "waiting" || !open.length) {
      el.invite.hidden = true;
      return;
    }
    const link = `${location.origin}${location.pathname}#/join/${id}`;
    const input = h("input", { readonly: true, value: link, "data-testid": "invite-link", "aria-label": "Invite link", onfocus: (e) => e.target.select() });
    const copy = h("button", { type: "button", class: "secondary", "data-testid": "copy-invite" }, "Copy link");
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(link);
        copy.textContent = "Copied";
      } catch (err) {
        input.select();
      }
    });
    el.invite.hidden = false;
    replace(el.invite,
      h("p", {}, `Open seat${open.length > 1 ? "s" : ""}: ${open.map((s) => seatName(s.index)).join(", ")}. Send this link to a person to play with:`),
      h("div", { class: "row" }, input, copy),
    );
  }

  function seatBox(seat) {
    const body = st.body;
    const view = body.view;
    const hand = view.hand;
    const info = seatInfo(seat);
    const badges = [];
    if (view.dealer === seat && body.status === "active") badges.push("Dealer");
    if (hand && hand.maker === seat) badges.push(hand.alone === seat ? "Maker, alone" : "Maker");
    if (hand && hand.defender_alone === seat) badges.push("Defends alone");
    if (hand && hand.sitting_out.includes(seat)) badges.push("Sits out");
    const turn = view.turn === seat && body.status === "active";
    const away = Boolean(info && info.away);
    return h("div", {
      class: `seat pos-${POSITIONS[(seat - view.seat + 4) % 4]}${turn ? " turn" : ""}${hand && hand.sitting_out.includes(seat) ? " out" : ""}${away ? " away" : ""}`,
      "data-testid": `seat-${seatName(seat).toLowerCase()}`,
      "data-turn": String(turn),
      "data-away": String(away),
    },
      h("div", { class: "seat-name" }, seat === view.seat ? `${seatName(seat)} · You` : seatName(seat), teamOf(seat) === teamOf(view.seat) && seat !== view.seat ? " · partner" : ""),
      h("div", { class: "player" }, playerName(info)),
      away ? h("div", { class: "small away-note", "data-testid": "away-note", title: "Their time ran out; they can take the seat back" }, "(away — computer playing)") : null,
      info && info.kind === "human" && seat !== view.seat
        ? h("div", { class: `small presence ${info.present ? "here" : "gone"}`, "data-testid": "presence", "data-present": String(Boolean(info.present)) },
          info.present ? "● at the table" : "○ not connected")
        : null,
      hand ? h("div", { class: "small" }, `${hand.hand_sizes[seat]} card${hand.hand_sizes[seat] === 1 ? "" : "s"} · ${hand.tricks_won[seat]} trick${hand.tricks_won[seat] === 1 ? "" : "s"}`) : null,
      badges.length ? h("div", { class: "badges" }, badges.map((b) => h("span", { class: "badge" }, b))) : null,
      turn ? h("div", { class: "small turn-note" }, seat === view.seat ? "Your turn" : "To act") : null,
    );
  }

  function renderTable() {
    const view = st.body.view;
    const hand = view.hand;
    const center = h("div", { class: "center" });
    if (hand) {
      const trick = hand.current_trick;
      const last = hand.tricks.length ? hand.tricks[hand.tricks.length - 1] : null;
      if (trick.length) {
        center.append(trickCards(trick, "trick", `${trick.length} card${trick.length === 1 ? "" : "s"} on the table`));
      } else if (last && (view.phase === "play" || view.phase === "finished")) {
        center.append(trickCards(last.cards, "last-trick", `Last trick: won by ${who(last.winner)}`, true));
      } else if (view.phase === "bid1") {
        center.append(h("div", { class: "upcard", "data-testid": "upcard" }, h("div", { class: "small" }, "Turned up"), cardFace(hand.upcard)));
      } else if (hand.turned_down && view.phase === "bid2") {
        center.append(h("div", { class: "upcard", "data-testid": "turned-down" }, h("div", { class: "small" }, `${suitLabel(hand.turned_down)} turned down`)));
      } else if (view.phase === "discard") {
        center.append(h("div", { class: "upcard" }, h("div", { class: "small" }, `${seatName(view.dealer)} picked up`), cardFace(hand.upcard)));
      }
      if (!trick.length) center.setAttribute("data-count", "0");
    }
    replace(el.table,
      [0, 1, 2, 3].map(seatBox),
      center,
    );
  }

  function trickCards(cards, testid, caption, faded = false) {
    const view = st.body.view;
    return h("div", { class: `trick${faded ? " faded" : ""}`, "data-testid": testid, "data-count": String(cards.length) },
      cards.map(({ seat, card }) => h("div", { class: `played pos-${POSITIONS[(seat - view.seat + 4) % 4]}` }, cardFace(card, { testid: "played-card" }))),
      h("div", { class: "caption small" }, caption),
    );
  }

  function renderHand() {
    const body = st.body;
    const view = body.view;
    const hand = view.hand;
    if (!hand || !hand.cards.length) {
      replace(el.hand, body.status === "waiting" ? h("p", { class: "small" }, "Your cards are dealt when the match starts.") : null);
      return;
    }
    const legalByCard = new Map();
    for (const action of view.legal_actions) {
      if (action.card) legalByCard.set(action.card, action);
    }
    const cards = sortHand(hand.cards, hand.trump).map((card) => {
      const legal = legalByCard.get(card) || null;
      const verb = legal ? (legal.type === "discard" ? "Discard" : "Play") : "";
      return h("button", {
        type: "button",
        class: `card-button${isRed(card) ? " red" : ""}${legal ? "" : " illegal"}`,
        "data-testid": "card",
        "data-card": card,
        "data-legal": String(Boolean(legal)),
        "aria-disabled": legal ? "false" : "true",
        "aria-label": legal ? `${verb} the ${cardName(card)}` : `${cardName(card)}, not playable now (tap for the reason)`,
        title: legal ? `${verb} the ${cardName(card)}` : "Not playable now: tap to see why",
        onclick: () => onCard(card, legal),
      }, h("span", { class: "rank" }, cardLabel(card).slice(0, -1)), h("span", { class: "suit" }, cardLabel(card).slice(-1)));
    });
    const discard = view.phase === "discard" && view.turn === view.seat;
    replace(el.hand,
      discard ? h("p", { class: "prompt", "data-testid": "discard-prompt" }, `Choose a card to discard (you took the ${cardLabel(hand.upcard)}).`) : null,
      h("div", { class: "cards" }, cards),
      hand.my_discard ? h("p", { class: "small", "data-testid": "my-discard" }, `You discarded the ${cardLabel(hand.my_discard)}.`) : null,
      hand.sitting_out.includes(view.seat) ? h("p", { class: "small" }, "You sit this hand out: your partner went alone.") : null,
    );
  }

  function renderActions() {
    const view = st.body.view;
    const bidding = view.legal_actions.filter((a) => !a.card);
    replace(el.actions,
      bidding.map((action) => h("button", {
        type: "button",
        class: action.type === "pass" ? "secondary" : "primary",
        "data-testid": "action",
        "data-action": action.type,
        "data-alone": String(Boolean(action.alone)),
        "data-suit": action.suit || null,
        onclick: () => post(action),
      }, actionButtonLabel(action, view))),
    );
    const body = st.body;
    el.hintButton.hidden = !(body.hints_allowed && body.status === "active");
    el.hintButton.disabled = view.turn !== view.seat;
  }

  function renderInfo() {
    const body = st.body;
    const view = body.view;
    const hand = view.hand;
    const mine = teamOf(view.seat);
    const teamLabel = (team) => `${teamName(team)}${team === mine ? " (you)" : ""}`;
    const rows = [
      h("dt", {}, "Score"),
      h("dd", { "data-testid": "score", "data-scores": body.scores.join("-") },
        `${teamLabel(0)}: ${body.scores[0]} · ${teamLabel(1)}: ${body.scores[1]} · playing to ${body.options.target_score}`),
      h("dt", {}, "Hand"),
      h("dd", { "data-testid": "hand-number" }, view.hand_number ? `${view.hand_number}, dealt by ${who(view.dealer)}` : "not dealt yet"),
    ];
    if (hand) {
      rows.push(
        h("dt", {}, "Trump"),
        h("dd", { "data-testid": "trump", "data-trump": hand.trump || "" },
          hand.trump
            ? h("span", { class: SUITS[hand.trump].red ? "red" : "" }, `${suitLabel(hand.trump)}, called by ${who(hand.maker)}${hand.alone !== null ? " (alone)" : ""}`)
            : hand.turned_down ? `not yet; ${suitLabel(hand.turned_down)} turned down` : `not yet; ${cardLabel(hand.upcard)} turned up`),
        h("dt", {}, "Tricks this hand"),
        h("dd", { "data-testid": "tricks-won" },
          `${teamLabel(0)}: ${hand.tricks_won[0] + hand.tricks_won[2]} · ${teamLabel(1)}: ${hand.tricks_won[1] + hand.tricks_won[3]}`),
      );
      if (hand.bids.length) {
        rows.push(
          h("dt", {}, "Bidding"),
          h("dd", {}, h("ol", { class: "bids", "data-testid": "bids" },
            hand.bids.map((bid) => h("li", {}, describeAction(bid, who(bid.seat), hand, view.dealer, bid.seat))))),
        );
      }
      if (hand.commitment) {
        rows.push(h("dt", {}, "Deal commitment"), h("dd", { class: "hash", title: "sha256 of this deal's deck, revealed in the replay" }, hand.commitment.slice(0, 16) + "…"));
      }
    }
    if (view.last_hand) {
      rows.push(h("dt", {}, "Last hand"), h("dd", { "data-testid": "last-hand" }, describeHandResult(view.last_hand)));
    }
    const o = body.options;
    const rules = [
      o.stick_the_dealer ? "stick the dealer" : "redeal if all pass",
      o.going_alone ? "going alone" : "no going alone",
      o.defending_alone ? "defending alone" : null,
      o.lone_lead !== "dealer_left" ? `loner lead: ${o.lone_lead.replace("_", " ")}` : null,
      body.hints_allowed ? "hints" : "no hints",
      body.turn_seconds ? `turn timer: ${body.turn_seconds} s` : null,
    ].filter(Boolean);
    rows.push(h("dt", {}, "Rules"), h("dd", { "data-testid": "rules" }, rules.join(", ")));
    replace(el.info, h("h2", {}, "Match"), h("dl", {}, rows), h("p", {}, h("a", { href: "#/" }, "Lobby")));
  }

  function renderMessage() {
    const message = st.message;
    el.message.hidden = !message;
    if (!message) {
      el.message.textContent = "";
      el.message.removeAttribute("data-code");
      return;
    }
    el.message.className = `reason ${message.kind}`;
    el.message.setAttribute("data-code", message.code);
    replace(el.message, message.kind === "illegal" ? h("strong", {}, "Not allowed: ") : null, message.detail);
  }

  function renderHint() {
    const hint = st.hint;
    el.hint.hidden = !hint;
    if (!hint) return;
    el.hint.setAttribute("data-status", hint.status);
    if (hint.status === "pending") {
      replace(el.hint, "Thinking about a hint…");
      return;
    }
    if (hint.status !== "done" || !hint.action) {
      replace(el.hint, hint.explanation || "No hint this time: the table moved on.");
      return;
    }
    const view = st.body.view;
    const current = hint.seq === st.body.seq;
    replace(el.hint,
      h("strong", { "data-testid": "hint-action" }, `Hint: ${describeAction(hint.action, "You", view.hand, view.dealer, view.seat).replace(/^You /, "").replace(/^./, (c) => c.toUpperCase())}.`),
      " ",
      h("span", { "data-testid": "hint-explanation" }, sentence(hint.explanation)),
      current ? [" ", h("button", { type: "button", class: "secondary", "data-testid": "hint-apply", onclick: () => post(hint.action) }, "Do that")] : null,
    );
  }

  refresh();
  return () => {
    st.stopped = true;
    clearTimeout(st.clockTimer);
    clearTimeout(st.lateTimer);
    stopFollowing();
  };
}
