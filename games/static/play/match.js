// The table: your cards (illegal ones dimmed, a tap on one shows the engine's reason),
// the bidding, the trick, the score, hints, the turn timer and the end of the match.
// GET matches/{id} is the truth. It is read when the table needs it: an event on the
// stream newer than the view we have, unless our own move's answer (a view) is on its way;
// the events of one commit come together, so a burst is one read. The cards are shown
// from the log, one at a time at a pace a person can follow (pace.js): each card lands, a
// finished trick stays with its winner marked, and only then does the table move on to
// the view the server sent. The log is the stream's own events (redacted for us as GET
// matches/{id}/events is: the same events.event_for_seat); that endpoint is read only
// for what the stream has not brought (before it connected, or while it was down).
import { api, followMatch } from "./api.js";
import { PACES, loadPace, savePace } from "./pace.js";
import {
  SUITS,
  actionButtonLabel,
  capital,
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
import { changeText, ratingText } from "./record.js";
import { fourColourDeck, setFourColourDeck, setSoundOn, soundOn } from "./settings.js";
import { cardSound, played as soundsPlayed, trickSound } from "./sound.js";
import { cardBack, cardClasses, cardFace, cardInside, h, replace, suitIcon } from "./ui.js";

const POLL_MS = 2000;
// The events of one commit arrive within a few milliseconds: one view read for them all.
const VIEW_QUIET_MS = 40;
// How long the cards wait for the stream to bring the events a view is ahead by (it
// usually has them already: they are published before the view is answered).
const STREAM_WAIT_MS = 1000;
// After a turn deadline has passed on this clock, ask for the view once more if nothing
// has come on the stream by then (the server puts a computer player in at the deadline).
const LATE_REFRESH_MS = 2500;
const RETURN_ATTEMPTS = 5;
const REMATCH_WATCH_MS = 10 * 60 * 1000;
const POSITIONS = ["bottom", "left", "top", "right"]; // you, your left, partner, your right
// A catch-up (after a reconnect, a tab that was hidden, or more than a hand behind, as
// when a computer player plays for you) plays at most this many finished tricks at the
// pace; the ones before are put in place at once.
const CATCH_UP_TRICKS = 1;
// More finished tricks than this waiting to be shown is a catch-up. The most a person at
// the table is ever shown at once is 6: the last trick of their own hand, then the 5 of a
// hand they sit out (their partner alone); all are shown in full.
const BACKLOG_TRICKS = 6;
const KEYS_HELP = "Keys: 1–5 play or discard a card · P pass · O order up (pick up) · A go alone · H hint · L last trick · Esc closes a panel · any other key skips ahead.";

const PHASES = {
  deal: "Between hands",
  bid1: "Bidding, round one",
  discard: "The dealer's discard",
  bid2: "Bidding, round two",
  defend: "Defending alone?",
  name_suit: "The dealer names the joker's suit",
  farm: "A farmer's hand?",
  redeal: "No ace, no face, no trump: a redeal?",
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
    // What the table shows is played from the log at a person's pace:
    latest: null, // the newest view the server sent (st.body is the one drawn)
    eventSeq: 0, // the log is queued up to here
    fetchingEvents: false,
    eventsAgain: false,
    queue: [], // steps still to show: {kind: "deal" | "card" | "won", ...}
    running: false,
    fast: false, // skip ahead: what is queued is shown at once
    catchUp: false, // the next events are a catch-up (a reconnect): only the last trick at the pace
    wasDown: false,
    show: null, // the trick drawn: {hand, trick, cards, leader, winner, moving, fresh}
    lastTrick: null, // {hand, trick, cards, winner}
    lastTrickOpen: false,
    myPlayed: new Set(), // our cards already on the table while the view drawn is older
    said: null, // what just happened, in the status line while the cards are shown
    wake: null, // ends the current pause
    alone: false, // the "go alone" toggle beside the bid
    leaving: false, // the Leave button asked "are you sure?"
    pace: loadPace(),
    streamed: new Map(), // seq -> the stream's event, not yet queued
    streamedTop: 0, // the newest seq the stream brought
    streamUp: false,
    streamWaiter: null, // wakes fetchEvents when the stream brings an event
    viewTimer: null, // a view read after a burst of events
    posting: false, // our move's answer (a view) is on its way
    viewSinceKeepAlive: false,
  };

  const el = {
    status: h("p", { class: "status", "data-testid": "status", role: "status" }),
    // Its own live region, off: a screen reader would otherwise read it every second.
    countdown: h("span", { class: "countdown", "data-testid": "turn-countdown", "aria-live": "off", hidden: true }),
    away: h("div", { class: "away-notice", "data-testid": "away-notice", role: "alert", hidden: true }),
    returnButton: h("button", { type: "button", class: "primary", "data-testid": "return-button" }, "I'm back"),
    banner: h("div", { class: "banner", "data-testid": "match-over", hidden: true }),
    // A spectator of a public match: no one's cards, and how many are watching.
    watching: h("p", { class: "watching", "data-testid": "watching", hidden: true }),
    // A quick play table waiting for people: when computer players take the open seats.
    queue: h("div", { class: "queue", "data-testid": "quickplay-wait", hidden: true }),
    invite: h("div", { class: "invite", "data-testid": "invite", hidden: true }),
    table: h("div", { class: "table", "data-testid": "table" }),
    felt: h("div", { class: "felt" }),
    hand: h("div", { class: "hand", "data-testid": "hand", role: "group", "aria-label": "Your cards" }),
    actions: h("div", { class: "actions", "data-testid": "actions" }),
    message: h("p", { class: "reason", role: "alert", "data-testid": "reason", hidden: true }),
    hint: h("div", { class: "hint", "data-testid": "hint", hidden: true, "aria-live": "polite" }),
    hintButton: h("button", { type: "button", class: "secondary", "data-testid": "hint-button", "aria-keyshortcuts": "H", hidden: true }, "Hint"),
    lastTrickButton: h("button", { type: "button", class: "secondary", "data-testid": "last-trick-button", "aria-keyshortcuts": "L", "aria-expanded": "false", "aria-controls": "last-trick" }, "Last trick"),
    lastTrick: h("div", { class: "last-trick-panel", id: "last-trick", "data-testid": "last-trick", role: "region", "aria-label": "Last trick", hidden: true }),
    settingsButton: h("button", { type: "button", class: "secondary", "data-testid": "settings-button", "aria-expanded": "false", "aria-controls": "settings" }, "⚙ Settings"),
    settings: h("div", { class: "settings-panel", id: "settings", "data-testid": "settings", role: "region", "aria-label": "Settings", hidden: true }),
    leaveButton: h("button", { type: "button", class: "secondary leave", "data-testid": "leave-button" }, "Leave"),
    leave: h("div", { class: "leave-confirm", "data-testid": "leave-confirm", role: "alertdialog", "aria-label": "Leave the match?", hidden: true }),
    alone: h("label", { class: "check alone-toggle", hidden: true }),
    scoreline: h("div", { class: "scoreline", "data-testid": "scoreline" }),
    info: h("aside", { class: "info", "data-testid": "info" }),
  };
  el.hintButton.addEventListener("click", askHint);
  el.returnButton.addEventListener("click", comeBack);
  el.lastTrickButton.addEventListener("click", () => toggleLastTrick());
  el.settingsButton.addEventListener("click", () => toggleSettings());
  el.leaveButton.addEventListener("click", () => {
    st.leaving = true;
    renderLeave();
  });
  el.hand.setAttribute("tabindex", "-1");
  // A tap on the table while the cards are being shown skips ahead.
  el.table.addEventListener("click", () => skipAhead());

  const screen = h("section", { class: "match", id: "match", "data-testid": "match", "data-match-id": id, "data-seq": "", "data-busy": "false" },
    h("h1", { class: "visually-hidden" }, "Euchre: the table"),
    el.scoreline,
    el.status,
    el.away,
    el.watching,
    el.banner,
    el.queue,
    el.invite,
    el.leave,
    h("div", { class: "board" },
      h("div", { class: "play-area" },
        replace(el.felt,
          el.table,
          el.lastTrick,
          h("div", { class: "bid-row" }, el.actions, el.alone),
          h("h2", { class: "visually-hidden" }, "Your cards"),
          el.hand,
        ),
        el.message,
        el.hint,
        h("div", { class: "row controls" }, el.hintButton, el.lastTrickButton, el.settingsButton, el.leaveButton),
        el.settings,
      ),
      el.info,
    ),
  );
  // The table goes on the page with the first view, drawn in full (not an empty felt
  // that then grows, moving everything under it).
  replace(root, h("p", { class: "loading", "data-testid": "match-loading" }, "Dealing…"));
  screen.setAttribute("data-sounds", "0-0");
  document.addEventListener("keydown", onKey);
  const onVisible = () => {
    if (!document.hidden) catchUp();
  };
  document.addEventListener("visibilitychange", onVisible);

  // The settings menu: the pace of the cards (pace.js), the deck's colours and the sound
  // (settings.js), all kept on this device; for a player, the keys too. A spectator's
  // menu has the deck and the sound only (no keys to press, nothing to pace for a player).
  function renderSettings() {
    const watcher = spectator();
    const pace = h("select", { id: "pace", "data-testid": "pace" },
      Object.entries(PACES).map(([name, p]) => h("option", { value: name, selected: st.pace.name === name }, p.label)),
      st.pace.name === "custom" ? h("option", { value: "custom", selected: true }, "Your own") : null,
    );
    pace.addEventListener("change", () => {
      if (!PACES[pace.value]) return;
      savePace(pace.value);
      st.pace = loadPace();
    });
    const four = h("input", { type: "checkbox", id: "four-colour", "data-testid": "four-colour", checked: fourColourDeck() });
    four.addEventListener("change", () => setFourColourDeck(four.checked));
    const sound = h("input", { type: "checkbox", id: "sound", "data-testid": "sound", checked: soundOn() });
    sound.addEventListener("change", () => {
      setSoundOn(sound.checked);
      if (sound.checked) cardSound(); // what it sounds like, and the browser's leave to play
    });
    replace(el.settings,
      h("h2", {}, "Settings"),
      watcher ? null : h("p", { class: "setting" }, h("label", { for: "pace", class: "inline" }, "Pace of the cards "), pace),
      h("p", { class: "setting" }, h("label", { class: "check", for: "four-colour" }, four, " Four-colour deck (♥ red, ♦ blue, ♣ green, ♠ black)")),
      h("p", { class: "setting" }, h("label", { class: "check", for: "sound" }, sound, " Sound for a card played and a trick won")),
      watcher ? null : h("p", { class: "small keys", "data-testid": "shortcuts" }, KEYS_HELP),
      h("p", { class: "small" }, "Kept on this device."),
      h("button", { type: "button", class: "secondary", onclick: () => toggleSettings(false) }, "Close"),
    );
  }

  function toggleSettings(open = el.settings.hidden) {
    const inside = el.settings.contains(document.activeElement);
    if (open) renderSettings();
    el.settings.hidden = !open;
    el.settingsButton.setAttribute("aria-expanded", String(open));
    if (open) el.settings.querySelector("select, input")?.focus();
    else if (inside || focusLost()) el.settingsButton.focus({ preventScroll: true });
  }

  // ---------------------------------------------------------------- loading and following

  function accept(body) {
    if (st.latest && body.seq < st.latest.seq) return; // an older answer arriving late
    if (!body.view && body.spectator_view) {
      // Watching a public match: the table is drawn as for a seat that holds no cards
      // and has nothing to do (spectator() tells the two apart).
      body.view = { ...body.spectator_view, seat: null, legal_actions: [] };
    }
    st.viewSinceKeepAlive = true;
    const text = JSON.stringify(body);
    if (st.latest && text === st.bodyText) {
      // The same view again (several events, one answer): keep the table as it is, so
      // that a button under the pointer or with the focus is not replaced.
      renderMessage();
      follow();
      return;
    }
    const first = !st.latest;
    st.latest = body;
    st.bodyText = text;
    follow();
    if (first) {
      if (!screen.isConnected) replace(root, screen);
      // What happened before the page was opened is not played again.
      st.eventSeq = body.seq;
      st.dealtHand = body.view.hand_number;
      adopt();
    } else if (body.seq > st.eventSeq) {
      render(); // no longer our turn to act until the cards are shown
      fetchEvents();
    } else if (!st.running && !st.queue.length && !st.fetchingEvents) {
      adopt(); // no new event (e.g. who is at the table changed)
    }
  }

  // The view sent is drawn in full: the table has caught up with it.
  function adopt() {
    const body = st.latest;
    st.body = body;
    resyncShow();
    st.said = null;
    render();
  }

  // Still showing cards from the log, or about to: no move can be made yet.
  function pending() {
    return Boolean(st.latest && (st.latest !== st.body || st.running || st.queue.length || st.fetchingEvents));
  }

  // The trick drawn, from the view (on opening the page, and once the cards are shown).
  function resyncShow() {
    const view = st.latest.view;
    const hand = view.hand;
    st.myPlayed = new Set();
    if (!hand) {
      st.show = null;
      return;
    }
    const trick = hand.current_trick;
    const leader = trick.length ? trick[0].seat : view.phase === "play" ? view.turn : null;
    st.show = { hand: view.hand_number, trick: hand.tricks.length + 1, cards: trick.map((c) => ({ ...c })), leader, winner: null, moving: false, fresh: -1 };
    if (hand.tricks.length) {
      const last = hand.tricks[hand.tricks.length - 1];
      st.lastTrick = { hand: view.hand_number, trick: hand.tricks.length, cards: last.cards, winner: last.winner };
    }
  }

  // ---------------------------------------------------------------- the log at a person's pace

  async function fetchEvents() {
    if (st.fetchingEvents) {
      st.eventsAgain = true;
      return;
    }
    st.fetchingEvents = true;
    try {
      do {
        st.eventsAgain = false;
        const upTo = st.latest.seq;
        let logged = await streamedUpTo(upTo);
        if (st.stopped) return;
        if (!logged) logged = (await api("GET", `matches/${id}/events?after=${st.eventSeq}`)).events;
        if (st.stopped) return;
        // Only as far as the view we have: the table ends on that view.
        const events = logged.filter((e) => e.seq > st.eventSeq && e.seq <= upTo);
        if (events.length) st.eventSeq = events[events.length - 1].seq;
        st.eventSeq = Math.max(st.eventSeq, upTo);
        enqueue(events);
        // How far the log is queued to be shown (tests wait on it rather than a guess).
        screen.setAttribute("data-queued-seq", String(st.eventSeq));
        for (const seq of st.streamed.keys()) if (seq <= st.eventSeq) st.streamed.delete(seq);
      } while (st.eventsAgain && !st.stopped);
    } catch (err) {
      // The log could not be read: the view is drawn as it is.
      if (st.latest) st.eventSeq = Math.max(st.eventSeq, st.latest.seq);
    } finally {
      st.fetchingEvents = false;
    }
    runQueue();
  }

  // The stream's events after st.eventSeq up to `upTo`, once it has brought every one
  // (waiting a moment while it is up); null if it has not.
  async function streamedUpTo(upTo) {
    const deadline = Date.now() + STREAM_WAIT_MS;
    for (;;) {
      const events = [];
      for (let seq = st.eventSeq + 1; seq <= upTo && st.streamed.has(seq); seq++) events.push(st.streamed.get(seq));
      if (events.length === upTo - st.eventSeq) return events;
      const left = deadline - Date.now();
      if (!st.streamUp || left <= 0 || st.stopped) return null;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, left);
        st.streamWaiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      st.streamWaiter = null;
    }
  }

  // An event from the stream: kept for the cards, and a view read if it is newer than ours.
  function streamed(event) {
    if (event.seq > st.eventSeq) st.streamed.set(event.seq, event);
    st.streamedTop = Math.max(st.streamedTop, event.seq);
    if (st.streamWaiter) st.streamWaiter();
    viewSoon();
  }

  // Reads the view once the burst of events is in, if it is still newer than ours and no
  // answer of our own move (a view) is on its way.
  function viewSoon() {
    if (st.viewTimer) return;
    st.viewTimer = setTimeout(() => {
      st.viewTimer = null;
      if (st.stopped || st.posting || !st.latest || st.streamedTop <= st.latest.seq) return;
      refresh();
    }, VIEW_QUIET_MS);
  }

  function enqueue(events) {
    const start = st.queue.length;
    for (const e of events) {
      if (e.type === "hand_dealt") st.queue.push({ kind: "deal", hand: e.payload.hand });
      else if (e.type === "card_played" && e.payload.action) st.queue.push({ kind: "card", seat: e.seat, card: e.payload.action.card });
      else if (e.type === "trick_won") st.queue.push({ kind: "won", seat: e.payload.seat, trick: e.payload.trick });
    }
    if (document.hidden) {
      // Nobody is looking: no pace (the last trick is still kept for the control).
      for (let i = start; i < st.queue.length; i++) st.queue[i].instant = true;
    } else if (st.catchUp || st.queue.filter((step) => step.kind === "won" && !step.instant).length > BACKLOG_TRICKS) {
      st.catchUp = false;
      catchUp();
    }
  }

  // All but the last finished trick still to be shown are put in place at once.
  function catchUp() {
    let left = CATCH_UP_TRICKS + 1;
    for (let i = st.queue.length - 1; i >= 0; i--) {
      if (st.queue[i].kind === "won") left -= 1;
      if (left <= 0) {
        for (let j = 0; j <= i; j++) st.queue[j].instant = true;
        return;
      }
    }
  }

  async function runQueue() {
    if (st.running) return;
    st.running = true;
    st.pace = loadPace(); // a pace chosen meanwhile (here or in another tab) holds from now
    try {
      while (st.queue.length && !st.stopped) await playStep(st.queue.shift());
    } finally {
      st.running = false;
      st.fast = false;
    }
    if (!st.stopped && !st.fetchingEvents && st.latest) adopt();
  }

  function pause(ms) {
    if (ms <= 0 || st.fast) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (st.wake === done) st.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      st.wake = done;
    });
  }

  // A tap or a key while cards are being shown: show the rest at once.
  function skipAhead() {
    if (!st.running) return false;
    st.fast = true;
    if (st.wake) st.wake();
    return true;
  }

  // Draws a step: the view drawn follows the newest one as long as it is of the same hand
  // (a finished match or the next deal waits for the last trick to be shown).
  function drawStep() {
    const latest = st.latest;
    if (st.show && latest.view.hand_number === st.show.hand && latest.status !== "finished") st.body = latest;
    render();
  }

  async function playStep(step) {
    const instant = step.instant || st.fast;
    const me = st.latest.view.seat;
    if (step.kind === "deal") {
      st.show = { hand: step.hand, trick: 1, cards: [], leader: null, winner: null, moving: false, fresh: -1 };
      st.myPlayed = new Set();
      if (!instant) drawStep();
      return;
    }
    if (!st.show) return;
    if (step.kind === "card") {
      const show = st.show;
      show.cards.push({ seat: step.seat, card: step.card });
      show.leader = show.cards[0].seat;
      show.fresh = instant ? -1 : show.cards.length - 1;
      if (step.seat === me) st.myPlayed.add(step.card);
      st.said = `${who(step.seat)} ${step.seat === me ? "play" : "plays"} the ${cardLabel(step.card)}.`;
      if (!instant) {
        cardSound();
        drawStep();
        await pause(st.pace.card);
      }
      return;
    }
    if (step.kind === "won") {
      const show = st.show;
      show.winner = step.seat;
      show.trick = step.trick;
      show.fresh = -1;
      st.said = `${who(step.seat)} ${step.seat === me ? "win" : "wins"} trick ${step.trick}.`;
      if (!instant) {
        trickSound();
        drawStep();
        await pause(st.pace.hold);
        if (st.pace.move && !st.fast) {
          show.moving = true;
          renderTable();
          await pause(st.pace.move);
        }
      }
      st.lastTrick = { hand: show.hand, trick: step.trick, cards: show.cards, winner: step.seat };
      st.show = { hand: show.hand, trick: step.trick + 1, cards: [], leader: step.seat, winner: null, moving: false, fresh: -1 };
      if (!instant) drawStep();
    }
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
        if (st.message && st.message.code === "network_error") {
          // Back again: what was missed meanwhile is caught up without the pace, whether
          // this answer (a poll) or the stream's reconnect comes first.
          st.message = null;
          st.catchUp = true;
        }
        accept(body);
      } while (st.again && !st.stopped);
      viewSoon(); // events that came while it was read
    } catch (err) {
      if (!st.latest) {
        const text = err.status === 404 ? "There is no such match, or you have no seat at it (a private match is seen by its players only)." : err.detail;
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
    const finished = st.latest.status === "finished";
    if (finished) {
      stopFollowing();
      return;
    }
    if (st.stopStream || st.polling) return;
    st.stopStream = followMatch(id, st.latest.seq, {
      onEvent: streamed,
      // A public match: the stream is counted as watching (or at the table) before its
      // first line; read the view again for the count that includes it.
      onReady: () => {
        if (st.latest && st.latest.visibility === "public") refresh();
      },
      // Who is at the table changes without an event: look again now and then (unless a
      // view came since the last keep-alive).
      onKeepAlive: () => {
        if (!st.viewSinceKeepAlive) refresh();
        st.viewSinceKeepAlive = false;
      },
      onUnavailable: () => {
        // No stream here (e.g. a WSGI-only deployment): ask for the view every few seconds.
        st.stopStream = null;
        st.streamUp = false;
        st.polling = true;
        startPolling();
      },
      onConnected: (up) => {
        st.streamUp = up;
        // While the stream is down, poll; once it is back it replays what was missed.
        if (up) {
          stopPolling();
          // What was missed while the stream was down is caught up without the pace.
          if (st.wasDown) {
            st.catchUp = true;
            catchUp();
          }
          st.wasDown = false;
        } else {
          st.wasDown = true;
          startPolling();
        }
      },
    });
  }

  function startPolling() {
    if (st.stopped || st.pollTimer) return;
    st.pollTimer = setInterval(() => {
      if (!st.busy && st.latest && st.latest.status !== "finished") refresh();
    }, POLL_MS);
  }

  function stopPolling() {
    if (st.pollTimer) clearInterval(st.pollTimer);
    st.pollTimer = null;
  }

  function stopFollowing() {
    if (st.stopStream) st.stopStream();
    st.stopStream = null;
    st.streamUp = false;
    if (st.streamWaiter) st.streamWaiter();
    stopPolling();
  }

  // ---------------------------------------------------------------- acting

  async function post(action) {
    if (st.busy || !st.body || pending()) return null;
    setBusy(true);
    st.posting = true;
    try {
      const body = await api("POST", `matches/${id}/actions`, { ...action, expected_seq: st.latest.seq });
      st.posting = false;
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
      st.posting = false;
      setBusy(false);
      viewSoon(); // events newer than the answer (a computer player who moved since)
    }
  }

  function onCard(card, legal) {
    if (pending()) {
      skipAhead();
      return;
    }
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
    const buttons = [...screen.querySelectorAll("button[data-action], button[data-testid=card]"), el.returnButton];
    // A disabled button loses the focus to <body> until the answer is drawn: the hand
    // holds it meanwhile (the answer's drawing moves it on to the next control).
    if (busy && buttons.includes(document.activeElement)) el.hand.focus({ preventScroll: true });
    for (const b of buttons) b.disabled = busy;
  }

  function setMessage(err, kind) {
    st.message = err ? { code: err.code || "error", detail: err.detail || String(err), kind } : null;
    renderMessage();
  }

  // ---------------------------------------------------------------- drawing

  // Who sits where, who is at the table or away, and the turn's deadline are not cards:
  // they are drawn from the newest view at once, not at the pace of the cards.
  function seatInfo(seat) {
    return st.latest.seats[seat];
  }

  // Watching a public match: no seat of ours (the table is drawn with south at the bottom).
  function spectator() {
    const body = st.latest || st.body;
    return Boolean(body && body.view && (body.view.seat === null || body.view.seat === undefined));
  }

  function amAway() {
    const body = st.latest;
    const mine = body.seats[body.view.seat];
    return Boolean(mine && mine.away);
  }

  function who(seat) {
    const view = st.body.view;
    if (seat === view.seat) return "You";
    return seatName(seat);
  }

  // A farmer's exchange: who, and how many cards; which ones only to the farmer (the view
  // gives `my_farm` to the farmer alone).
  function describeFarm(farmer, myFarm) {
    const mine = myFarm && myFarm.got.length
      ? ` You put out ${myFarm.gave.map(cardLabel).join(" ")} and took ${myFarm.got.map(cardLabel).join(" ")}.`
      : "";
    return `${who(farmer)} exchanged three nines and tens, face down, for the three cards under the upcard.${mine}`;
  }

  // Our turn, and the table has caught up with the view: a move can be made.
  function myTurnNow() {
    const body = st.body;
    return Boolean(body && body.status === "active" && !spectator() && body.view.turn === body.view.seat && !pending());
  }

  function render() {
    const body = st.body;
    const view = body.view;
    // Drawing replaces the buttons: the focus, if it was on one of them (or nowhere),
    // goes to the hand or to the next control afterwards, not to <body>.
    const active = document.activeElement;
    const refocus = !active || active === document.body || [el.hand, el.actions, el.table, el.hint, el.banner].some((box) => box.contains(active));
    const focusedCard = active && active.dataset && active.dataset.testid === "card";
    // Elsewhere on the table (the Lobby link, the last trick's Close, I'm back…), the
    // control drawn again in its place gets it back.
    const twin = !refocus && screen.contains(active) ? twinOf(active) : null;
    // A hint belongs to the turn it was asked for: gone once the table drawn has moved on
    // (the cards shown from the log move st.body on too, not only adopt()).
    if (st.hint && st.hint.seq !== body.seq) st.hint = null;
    screen.setAttribute("data-seq", String(body.seq));
    screen.setAttribute("data-status", body.status);
    screen.setAttribute("data-phase", view.phase);
    screen.setAttribute("data-seat", String(view.seat));
    screen.setAttribute("data-dealer", String(view.dealer));
    screen.setAttribute("data-pending", String(pending()));
    screen.setAttribute("data-my-turn", String(myTurnNow()));
    screen.setAttribute("data-away", String(amAway() && st.latest.status === "active"));
    screen.setAttribute("data-turn-deadline", st.latest.turn_deadline || "");
    renderStatus();
    renderCountdown();
    renderAway();
    renderBanner();
    renderWatching();
    renderQueue();
    renderInvite();
    renderTable();
    renderHand();
    renderActions();
    renderInfo();
    renderMessage();
    renderHint();
    renderScoreline();
    renderLastTrick();
    renderLeave();
    screen.setAttribute("data-sounds", `${soundsPlayed.card}-${soundsPlayed.trick}`);
    // The settings menu is built once the table knows whether we play or watch.
    if (!el.settings.firstChild) renderSettings();
    setBusy(st.busy);
    if (refocus) placeFocus(focusedCard);
    else if (focusLost()) {
      const again = twin && twin();
      if (again) again.focus({ preventScroll: true });
      if (focusLost()) placeFocus(false); // gone, hidden or disabled now
    }
  }

  function focusLost() {
    const active = document.activeElement;
    return !active || active === document.body;
  }

  // Finds, once the table is drawn again, the control that stands where `control` stood:
  // the same element put back, or one of the same kind, test id and words.
  function twinOf(control) {
    const testid = control.getAttribute("data-testid");
    const words = control.textContent;
    return () => [...screen.querySelectorAll(control.tagName)].find((c) => c === control
      || (c.getAttribute("data-testid") === testid && c.textContent === words));
  }

  function placeFocus(fromCard) {
    if (!screen.isConnected) return;
    let target = null;
    if (st.body.status === "finished") {
      target = el.banner.querySelector("a");
    } else if (myTurnNow()) {
      target = el.actions.querySelector("button") || el.hand.querySelector("button[data-legal=true]");
    } else if (fromCard) {
      target = el.hand.querySelector("button[data-testid=card]");
    }
    (target || el.hand).focus({ preventScroll: true });
  }

  // The score and trump in one line that stays in view (sticky) on a phone.
  function renderScoreline() {
    const body = st.body;
    const view = body.view;
    const hand = view.hand;
    const mine = teamOf(view.seat);
    const us = body.scores[mine];
    const them = body.scores[1 - mine];
    const trump = hand && hand.trump;
    if (spectator()) {
      replace(el.scoreline,
        h("span", { class: "chip", "data-testid": "trump-now", "data-trump": trump || "" },
          "Trump: ",
          trump ? h("strong", { class: SUITS[trump].red ? "red" : "" }, suitLabel(trump)) : h("strong", {}, "not chosen yet")),
        h("span", { class: "chip", "data-testid": "score-now", "data-scores": body.scores.join("-") },
          "Score: ", h("strong", {}, `${teamName(0)} ${body.scores[0]}, ${teamName(1)} ${body.scores[1]}`), ` (to ${body.options.target_score})`),
      );
      return;
    }
    replace(el.scoreline,
      h("span", { class: "chip", "data-testid": "trump-now", "data-trump": trump || "" },
        "Trump: ",
        trump ? h("strong", { class: SUITS[trump].red ? "red" : "" }, suitLabel(trump)) : h("strong", {}, "not chosen yet")),
      h("span", { class: "chip", "data-testid": "score-now", "data-scores": body.scores.join("-") },
        "Score: ", h("strong", {}, `us ${us}, them ${them}`), ` (to ${body.options.target_score})`),
      hand ? h("span", { class: "chip" }, "Tricks: ", h("strong", {}, `us ${hand.tricks_won[mine] + hand.tricks_won[mine + 2]}, them ${hand.tricks_won[1 - mine] + hand.tricks_won[3 - mine]}`)) : null,
    );
  }

  function toggleLastTrick(open = !st.lastTrickOpen) {
    const inside = el.lastTrick.contains(document.activeElement);
    st.lastTrickOpen = Boolean(open && st.lastTrick);
    renderLastTrick();
    // Closed from within (its Close, or Esc there): back to the control that opens it.
    if (inside && focusLost()) el.lastTrickButton.focus({ preventScroll: true });
  }

  // The previous trick, at any time (the "Last trick" control, or L).
  function renderLastTrick() {
    const last = st.lastTrick;
    el.lastTrickButton.disabled = !last;
    el.lastTrickButton.setAttribute("aria-expanded", String(st.lastTrickOpen && Boolean(last)));
    el.lastTrick.hidden = !(st.lastTrickOpen && last);
    if (!last) return;
    const view = st.body.view;
    el.lastTrick.setAttribute("data-hand", String(last.hand));
    el.lastTrick.setAttribute("data-trick", String(last.trick));
    el.lastTrick.setAttribute("data-winner", String(last.winner));
    replace(el.lastTrick,
      h("p", { class: "caption" }, `Last trick (trick ${last.trick} of hand ${last.hand}): ${who(last.winner)} won it.`),
      h("div", { class: "last-cards" },
        last.cards.map(({ seat, card }, i) => h("div", { class: `last-card${seat === last.winner ? " winner" : ""}` },
          h("div", { class: "small" }, `${seat === view.seat ? "You" : seatName(seat)}${i === 0 ? " (led)" : ""}${seat === last.winner ? " — won" : ""}`),
          cardFace(card, { testid: "last-trick-card" })))),
      h("button", { type: "button", class: "secondary", onclick: () => toggleLastTrick(false) }, "Close"),
    );
  }

  function renderLeave() {
    const body = st.body;
    const seated = body.you !== null && body.you !== undefined;
    el.leaveButton.hidden = !(seated && body.status !== "finished");
    el.leave.hidden = !st.leaving || el.leaveButton.hidden;
    if (el.leave.hidden) return;
    replace(el.leave,
      h("p", {}, "Leave this match? A computer player takes your seat and plays on; you cannot come back to it."),
      h("div", { class: "row" },
        h("button", { type: "button", class: "primary", "data-testid": "leave-confirm-button", onclick: leave }, "Leave the match"),
        h("button", { type: "button", class: "secondary", "data-testid": "leave-cancel", onclick: () => { st.leaving = false; renderLeave(); el.leaveButton.focus(); } }, "Stay"),
      ),
    );
    const first = el.leave.querySelector("button");
    if (first && !el.leave.contains(document.activeElement)) first.focus();
  }

  async function leave() {
    try {
      await api("POST", `matches/${id}/leave`);
      location.hash = "#/";
    } catch (err) {
      st.leaving = false;
      setMessage(err, "error");
      renderLeave();
    }
  }

  // Keys: 1-5 a card, P pass, O order up, A go alone, H hint, L last trick; while cards
  // are being shown, any other key skips ahead.
  function onKey(event) {
    if (st.stopped || !st.body || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && target.closest && target.closest("input:not([type=checkbox]), select, textarea")) return;
    const key = event.key;
    if (["Tab", "Shift", "Control", "Alt", "Meta", "CapsLock"].includes(key)) return;
    const lower = key.toLowerCase();
    if (lower === "l") {
      event.preventDefault();
      toggleLastTrick();
      return;
    }
    if (key === "Escape" && st.lastTrickOpen) {
      toggleLastTrick(false);
      return;
    }
    if (key === "Escape" && !el.settings.hidden) {
      toggleSettings(false);
      return;
    }
    if (el.settings.contains(target)) return; // the settings' own controls take their keys
    if (st.running) {
      // Enter or Space on a control (Leave, Hint, the pace…) does what it says.
      const control = target && target.closest && target.closest("button, a, select, input");
      if ((key === "Enter" || key === " ") && control && !el.hand.contains(control)) return;
      if (skipAhead()) event.preventDefault();
      return;
    }
    const press = (button) => {
      if (!button || button.hidden || button.disabled) return;
      event.preventDefault();
      button.click();
    };
    if (/^[1-5]$/.test(key)) {
      press(el.hand.querySelectorAll("button[data-testid=card]")[Number(key) - 1]);
    } else if (lower === "p") {
      press(el.actions.querySelector("button[data-action=pass]"));
    } else if (lower === "o") {
      press(el.actions.querySelector("button[data-action=order_up]"));
    } else if (lower === "h") {
      press(el.hintButton);
    } else if (lower === "a") {
      const box = el.alone.querySelector("input");
      if (box && !el.alone.hidden) {
        event.preventDefault();
        box.click();
      }
    }
  }

  function renderStatus() {
    const body = st.body;
    const view = body.view;
    const hand = view.hand;
    let text;
    // The banner says the match is over: said once.
    el.status.hidden = body.status === "finished" && !pending();
    if (body.status === "waiting") {
      text = "Waiting for players to take the open seats.";
    } else if (spectator() && body.status === "active" && view.turn !== null && view.turn !== undefined && !pending()) {
      text = `${PHASES[view.phase]}: ${seatName(view.turn)} (${playerName(seatInfo(view.turn))}) to act.`;
    } else if (pending()) {
      text = st.said || "…";
    } else if (body.status === "finished") {
      text = "";
    } else if (view.turn === null || view.turn === undefined) {
      text = PHASES[view.phase] || view.phase;
    } else if (view.turn === view.seat && amAway()) {
      text = "A computer player is taking your turn…";
    } else if (view.turn === view.seat) {
      const upcard = hand && hand.upcard ? cardLabel(hand.upcard) : "";
      const dealer = view.dealer === view.seat;
      // The suit the upcard counts as: a joker's is named by the dealer or fixed (option
      // joker). A joker whose suit the dealer (us) is still to name has none yet: every
      // prompt is built here, and reading a suit of it threw, leaving the table without
      // its buttons.
      const upSuit = hand ? SUITS[hand.upcard_suit || hand.upcard[1]] : null;
      const makes = upSuit ? ` to make ${upSuit.name} trump` : "";
      const prompts = {
        bid1: dealer ? `Your turn: pass, or pick up the ${upcard}${makes}.` : `Your turn: pass, or order up the ${upcard}${makes}.`,
        name_suit: "The joker was turned up: name its suit before you look at your cards. It counts as that suit for round one.",
        farm: view.legal_actions.some((a) => a.type === "redeal")
          ? "You hold a farmer's hand (three or more nines and tens): ask for a new deal (the hand is thrown in and the next player deals), or keep your hand."
          : view.legal_actions.some((a) => a.type === "pass")
          ? "You hold a farmer's hand (three or more nines and tens): put out three of them, one at a time, for the three cards under the upcard, or keep your hand."
          : "Put out the rest of your three nines and tens.",
        redeal: "You hold no ace, no face card and no trump: call a redeal (the hand is thrown in), or play it.",
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
    el.status.classList.toggle("your-turn", myTurnNow());
  }

  // The turn timer: "12 s left" while a person's deadline runs, on this browser's clock
  // (never more than the match's turn_seconds, should this clock be behind the server's).
  function deadlineTime() {
    const body = st.latest;
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
    const seconds = Math.max(0, Math.min(st.latest.turn_seconds || Infinity, Math.ceil(left / 1000)));
    el.countdown.hidden = false;
    el.countdown.setAttribute("data-seconds", String(seconds));
    el.countdown.classList.toggle("urgent", seconds <= 5);
    el.countdown.textContent = seconds > 0 ? `${seconds} s left` : "time is up";
    if (seconds > 0) {
      // The next tick when the whole number of seconds left changes.
      const wait = left - (Math.ceil(left / 1000) - 1) * 1000;
      st.clockTimer = setTimeout(renderCountdown, Math.min(1000, Math.max(50, wait + 20)));
    } else if (st.lateFor !== st.latest.turn_deadline) {
      st.lateFor = st.latest.turn_deadline;
      clearTimeout(st.lateTimer);
      const seq = st.latest.seq;
      st.lateTimer = setTimeout(() => {
        if (!st.stopped && st.latest && st.latest.seq === seq) refresh();
      }, LATE_REFRESH_MS);
    }
  }

  function renderAway() {
    const away = amAway() && st.latest.status === "active";
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

  // Your rating and its change, asked for once when the match is over (GET
  // .../ratings), filled in where the banner keeps a place for it (the banner is not drawn
  // again for it, so the focus stays where it is).
  const ratingLine = h("p", { "data-testid": "rating-change", hidden: true });
  let ratingAsked = false;
  async function askRating() {
    ratingAsked = true;
    try {
      const { changes } = await api("GET", `matches/${id}/ratings`);
      const mine = changes.find((c) => c.seat === st.body.you);
      ratingLine.setAttribute("data-change", mine ? String(mine.change) : "");
      if (mine) {
        replace(ratingLine,
          `Your rating: ${ratingText(mine.before)} → ${ratingText(mine.after)} (${changeText(mine.change)}). `,
          h("a", { href: "#/record" }, "Your record"));
      } else {
        replace(ratingLine, "This match was not rated for you (guests are not rated).");
      }
      ratingLine.hidden = false;
    } catch (err) {
      // The banner is right without it.
    }
  }

  function renderBanner() {
    const body = st.body;
    if (body.status !== "finished") {
      el.banner.hidden = true;
      return;
    }
    if (!ratingAsked && body.you !== null && body.you !== undefined) askRating();
    const you = body.you;
    const won = you !== null && you !== undefined && teamOf(you) === body.winner_team;
    el.banner.hidden = false;
    el.banner.setAttribute("data-winner-team", String(body.winner_team));
    replace(el.banner,
      h("h2", {}, you === null || you === undefined ? `${teamName(body.winner_team)} won` : won ? "You won the match!" : "You lost the match."),
      h("p", { "data-testid": "final-score" }, `${teamName(body.winner_team)} won ${Math.max(...body.scores)}–${Math.min(...body.scores)} after ${body.hands_played} hand${body.hands_played === 1 ? "" : "s"}.`),
      amAway() ? h("p", { "data-testid": "away-to-the-end" }, "Your time ran out, and a computer player played for you to the end.") : null,
      ratingLine,
      h("p", {},
        h("a", { href: `#/replay/${id}`, class: "button primary", "data-testid": "replay-link" }, "Watch the replay"),
        " ",
        h("a", { href: "#/", class: "button secondary" }, "New match"),
      ),
      you === null || you === undefined ? null : rematchBox(st.latest),
    );
  }

  // A rematch: offer it, answer it, and go to it once everyone has accepted. Until an
  // offer is settled the view is asked for every few seconds (the finished match's
  // stream has ended).
  function rematchBox(body) {
    const offer = body.rematch;
    const box = h("div", { class: "rematch", "data-testid": "rematch", "data-rematch-status": offer ? offer.status : "none", "aria-live": "polite" });
    const send = (path) => async () => {
      try {
        accept(await api("POST", `matches/${id}/${path}`));
      } catch (err) {
        setMessage(err, "error");
        render();
      }
    };
    const mine = offer && offer.answers.find((a) => a.seat === body.you);
    // Someone else's offer, or the answers to ours, come by asking again (for at most
    // REMATCH_WATCH_MS after the end: a page left open is not asked for ever).
    const recent = Date.now() - Date.parse(body.finished_at) < REMATCH_WATCH_MS;
    watchRematch(recent && (!offer || offer.status === "pending"));
    if (!offer || offer.status === "declined" || offer.status === "expired") {
      replace(box,
        offer ? h("p", {}, offer.status === "declined" ? "The rematch was declined." : "The rematch offer expired.") : null,
        h("button", { type: "button", class: "primary", "data-testid": "rematch-offer", onclick: send("rematch") }, "Offer a rematch"),
      );
    } else if (offer.status === "started") {
      replace(box, h("p", {}, "Everyone accepted: ",
        h("a", { href: `#/match/${offer.match}`, class: "button primary", "data-testid": "rematch-link" }, "Go to the rematch")));
    } else if (mine && mine.answer === "pending") {
      replace(box,
        h("p", {}, `${offer.offered_by} offers a rematch: the same seats, the deal moved on one.`),
        h("div", { class: "row" },
          h("button", { type: "button", class: "primary", "data-testid": "rematch-accept", onclick: send("rematch/accept") }, "Accept"),
          h("button", { type: "button", class: "secondary", "data-testid": "rematch-decline", onclick: send("rematch/decline") }, "Decline")),
      );
    } else {
      const waiting = offer.answers.filter((a) => a.answer === "pending").map((a) => seatName(a.seat));
      replace(box, h("p", {}, `Rematch offered: waiting for ${waiting.join(", ")} to accept.`));
    }
    return box;
  }

  function watchRematch(on) {
    if (on && !st.rematchTimer && !st.stopped) {
      st.rematchTimer = setInterval(() => { if (!st.stopped) refresh(); }, POLL_MS);
    } else if (!on && st.rematchTimer) {
      clearInterval(st.rematchTimer);
      st.rematchTimer = null;
    }
  }

  function renderWatching() {
    const body = st.latest;
    const shown = body.visibility === "public" && body.status !== "waiting";
    el.watching.hidden = !shown;
    if (!shown) return;
    // A spectator's own page is watching: it counts them even before the server does
    // (their stream is counted once it is open, and the view may be read before that).
    const n = spectator() ? Math.max(1, body.watching || 0) : body.watching || 0;
    el.watching.setAttribute("data-count", String(n));
    replace(el.watching,
      spectator() ? h("strong", {}, "You are watching this match. ") : "A public match: anyone may watch. ",
      `${n} watching now.`);
  }

  function renderQueue() {
    const body = st.latest;
    const waiting = body.status === "waiting" && body.quickplay && !spectator();
    el.queue.hidden = !waiting;
    if (!waiting) return;
    const at = body.quickplay.starts_at ? new Date(body.quickplay.starts_at) : null;
    const leaveQueue = h("button", { type: "button", class: "secondary", "data-testid": "quickplay-leave" }, "Leave the queue");
    leaveQueue.addEventListener("click", async () => {
      try {
        await api("DELETE", "quickplay");
        location.hash = "#/";
      } catch (err) {
        setMessage(err, "error");
        render();
      }
    });
    replace(el.queue,
      h("p", {}, "Quick play: waiting for people with the same options. ",
        at && body.quickplay.computers
          ? `Computer players take the open seats at ${at.toLocaleTimeString()} if no one comes.`
          : "The match starts when four people are here."),
      leaveQueue);
    // Nothing is logged while we wait for the time: ask again then.
    if (at && !st.queueTimer) {
      st.queueTimer = setTimeout(() => { st.queueTimer = null; if (!st.stopped) refresh(); }, Math.max(500, at - Date.now() + 1500));
    }
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

  // A seat at the table: a name plate (who, the dealer's marker, trump made, alone, the
  // tricks taken) and, but for our own seat, the cards held as backs.
  function seatBox(seat) {
    const body = st.body;
    const view = body.view;
    const hand = view.hand;
    const info = seatInfo(seat);
    const mine = seat === view.seat;
    const active = body.status === "active";
    const out = Boolean(hand && hand.sitting_out.includes(seat));
    const badges = [];
    if (hand && hand.maker === seat && hand.trump) {
      badges.push(h("span", { class: `badge maker ${cardClasses("x" + hand.trump)}`, "data-testid": "maker-badge", title: `Made ${SUITS[hand.trump].name} trump` },
        "Made ", suitIcon(hand.trump, "badge-suit"), h("span", { class: "visually-hidden" }, SUITS[hand.trump].name)));
    }
    if (hand && hand.alone === seat) badges.push(h("span", { class: "badge alone", "data-testid": "alone-badge" }, "Alone"));
    if (hand && hand.defender_alone === seat) badges.push(h("span", { class: "badge alone", "data-testid": "alone-badge" }, "Defends alone"));
    if (out) badges.push(h("span", { class: "badge out-badge" }, "Sits out"));
    const turn = view.turn === seat && active && !pending();
    const away = Boolean(info && info.away);
    const held = hand ? hand.hand_sizes[seat] : 0;
    const tricks = hand ? hand.tricks_won[seat] : 0;
    const where = POSITIONS[(seat - view.seat + 4) % 4];
    const partner = !spectator() && teamOf(seat) === teamOf(view.seat) && !mine;
    const level = info && info.kind === "computer" ? `Computer · ${info.level || "medium"}` : playerName(info);
    // Our cards are the hand under the table; a spectator sees south's as backs too.
    const backs = hand && held && !(mine && !spectator())
      ? h("div", { class: "backs", "data-testid": "backs", "data-count": String(held), role: "img", "aria-label": `${held} card${held === 1 ? "" : "s"} in hand` },
        Array.from({ length: held }, () => cardBack()))
      : null;
    return h("div", {
      class: `seat pos-${where}${turn ? " turn" : ""}${out ? " out" : ""}${away ? " away" : ""}${view.dealer === seat && active ? " dealer" : ""}`,
      "data-testid": `seat-${seatName(seat).toLowerCase()}`,
      "data-turn": String(turn),
      "data-away": String(away),
    },
      h("div", { class: "plate" },
        h("div", { class: "seat-name" },
          view.dealer === seat && active ? h("span", { class: "dealer-marker", "data-testid": "dealer-marker", title: "Dealer", "aria-label": "Dealer" }, "D") : null,
          h("span", { class: "who" }, mine ? `${seatName(seat)} · You` : seatName(seat)),
          partner ? h("span", { class: "partner" }, " · partner") : null),
        h("div", { class: "player" }, level),
        away ? h("div", { class: "small away-note", "data-testid": "away-note", title: "Their time ran out; they can take the seat back" }, "(away — computer playing)") : null,
        info && info.kind === "human" && !mine && !spectator()
          ? h("div", { class: `small presence ${info.present ? "here" : "gone"}`, "data-testid": "presence", "data-present": String(Boolean(info.present)) },
            info.present ? "● at the table" : "○ not connected")
          : null,
        h("div", { class: "seat-line" },
          turn ? h("span", { class: "turn-note" }, mine ? "Your turn" : "To act") : null,
          badges,
          hand ? h("span", { class: "tricks", "data-testid": "seat-tricks", "data-count": String(tricks) }, `${tricks} trick${tricks === 1 ? "" : "s"}`) : null,
        ),
      ),
      backs,
    );
  }

  // The middle of the table: the trick as it is played, or before the first card who
  // leads; while bidding the turned-up card on the kitty (or the suit turned down).
  function renderTable() {
    const view = st.body.view;
    const hand = view.hand;
    const center = h("div", { class: "center", "data-testid": "center" });
    const show = st.show;
    if (show && show.cards.length) {
      center.append(trickCards(show));
    } else if (hand) {
      if (view.phase === "play" && show && show.leader !== null && show.leader !== undefined) {
        center.append(h("div", { class: "lead-note", "data-testid": "leader", "data-seat": String(show.leader) },
          show.leader === view.seat ? "Your lead" : `${seatName(show.leader)} leads`));
      } else if (["bid1", "name_suit", "farm"].includes(view.phase)) {
        center.append(h("div", { class: "upcard", "data-testid": "upcard" },
          h("div", { class: "kitty" }, cardBack(), cardBack(), cardBack(), cardFace(hand.upcard, { class: "turned-up" })),
          h("div", { class: "small" }, `Turned up by ${who(view.dealer)}`)));
      } else if (hand.turned_down && view.phase === "bid2") {
        center.append(h("div", { class: "upcard", "data-testid": "turned-down" },
          h("div", { class: "kitty" }, cardBack(), cardBack(), cardBack(), cardBack()),
          h("div", { class: "small" }, `${suitLabel(hand.turned_down)} turned down`)));
      } else if (view.phase === "discard") {
        center.append(h("div", { class: "upcard" }, h("div", { class: "kitty" }, cardFace(hand.upcard, { class: "turned-up" })), h("div", { class: "small" }, `${who(view.dealer)} picked it up`)));
      }
    }
    replace(el.table, [0, 1, 2, 3].map(seatBox), center);
    moveCards();
  }

  function position(seat) {
    return POSITIONS[(seat - st.body.view.seat + 4) % 4];
  }

  // The trick being shown: who led it, and once it is complete, who won it.
  function trickCards(show) {
    const view = st.body.view;
    const done = show.winner !== null;
    const caption = done
      ? `${who(show.winner)} ${show.winner === view.seat ? "win" : "wins"} trick ${show.trick}`
      : `Trick ${show.trick}: ${show.leader === view.seat ? "you led" : `${seatName(show.leader)} led`}`;
    return h("div", {
      class: `trick${done ? " won" : ""}`,
      "data-testid": "trick",
      "data-hand": String(show.hand),
      "data-trick": String(show.trick),
      "data-count": String(show.cards.length),
      "data-leader": String(show.leader),
      "data-winner": done ? String(show.winner) : "",
      "data-complete": String(done),
    },
    h("div", { class: "trick-cards" },
      show.cards.map(({ seat, card }, i) => h("div", {
        class: `played pos-${position(seat)}${i === 0 ? " leader" : ""}${done && seat === show.winner ? " winner" : ""}`,
        "data-seat": String(seat),
      },
      cardFace(card, { testid: "played-card" }),
      i === 0 ? h("span", { class: "mark" }, "led") : null,
      done && seat === show.winner ? h("span", { class: "mark win" }, "won") : null))),
    h("div", { class: "caption" }, caption),
    );
  }

  // ---------------------------------------------------------------- the cards' motion
  // Web animations (document.getAnimations() lists them, by id): a card played travels
  // from its seat to its place in the trick ("card-travel"); a finished trick, once its
  // time on the table is over, gathers to its winner's seat ("trick-gather"); a new hand's
  // cards come from the dealer ("deal"). None when the pace's movement is 0: the person
  // prefers reduced motion (pace.js), or chose a pace without it.
  function seatAnchor(seat) {
    if (seat === st.body.view.seat && !spectator()) return el.hand;
    const box = el.table.querySelector(`[data-testid=seat-${seatName(seat).toLowerCase()}]`);
    return box && (box.querySelector(".backs") || box);
  }

  function offset(from, to) {
    const a = from.getBoundingClientRect();
    const b = to.getBoundingClientRect();
    return [a.left + a.width / 2 - (b.left + b.width / 2), a.top + a.height / 2 - (b.top + b.height / 2)];
  }

  function moveCards() {
    const show = st.show;
    const move = st.pace.move;
    const trick = el.table.querySelector("[data-testid=trick]");
    if (!show || !trick || !move || st.fast) return;
    if (show.fresh >= 0 && show.travelled !== show.fresh) {
      show.travelled = show.fresh;
      const { seat } = show.cards[show.fresh];
      const card = trick.querySelector(`.played[data-seat="${seat}"]`);
      const from = seatAnchor(seat);
      if (card && from) {
        const [dx, dy] = offset(from, card);
        const travel = card.animate(
          [{ transform: `translate(${dx}px, ${dy}px) rotate(${dx > 0 ? 12 : -12}deg) scale(0.85)` }, { transform: "none" }],
          { duration: Math.min(move * 1.2, Math.max(st.pace.card, 120)), easing: "cubic-bezier(.2,.7,.3,1)" });
        travel.id = "card-travel";
        trick.setAttribute("data-motion", "travel");
      }
    }
    if (show.moving && !show.gathered) {
      show.gathered = true;
      const to = seatAnchor(show.winner);
      trick.setAttribute("data-motion", "gather");
      for (const card of trick.querySelectorAll(".played")) {
        if (!to) break;
        const [dx, dy] = offset(to, card);
        const gather = card.animate(
          [{ transform: "none", opacity: 1 }, { transform: `translate(${dx}px, ${dy}px) scale(0.45)`, opacity: 0.15 }],
          { duration: move, easing: "ease-in", fill: "forwards" });
        gather.id = "trick-gather";
      }
    }
  }

  // A new hand's cards come from the dealer's seat, one after another.
  function dealCards(buttons) {
    const move = st.pace.move;
    const view = st.body.view;
    if (!move || st.fast || !buttons.length || st.dealtHand === view.hand_number) return;
    st.dealtHand = view.hand_number;
    const from = seatAnchor(view.dealer);
    if (!from || from === el.hand) return;
    buttons.forEach((button, i) => {
      const [dx, dy] = offset(from, button);
      const deal = button.animate(
        [{ transform: `translate(${dx}px, ${dy}px) scale(0.4)`, opacity: 0 }, { opacity: 1, offset: 0.3 }, { transform: "none", opacity: 1 }],
        { duration: move * 1.6, delay: i * move * 0.3, easing: "ease-out", fill: "backwards" });
      deal.id = "deal";
    });
  }

  function renderHand() {
    const body = st.body;
    const view = body.view;
    const hand = view.hand;
    if (spectator()) {
      replace(el.hand, h("p", { class: "small", "data-testid": "spectator-note" }, "You are watching: no one's cards are shown until each hand is over."));
      return;
    }
    if (!hand || !hand.cards.length) {
      replace(el.hand, body.status === "waiting" ? h("p", { class: "small" }, "Your cards are dealt when the match starts.") : null);
      return;
    }
    const legalByCard = new Map();
    const now = myTurnNow();
    for (const action of now ? view.legal_actions : []) {
      if (action.card) legalByCard.set(action.card, action);
    }
    // Dimmed only when a card is to be chosen and this one may not be: while bidding, or
    // while others play, the hand is fully readable.
    const choosing = now && legalByCard.size > 0;
    const shownCards = sortHand(hand.cards.filter((c) => !st.myPlayed.has(c)), hand.trump);
    const n = shownCards.length;
    const cards = shownCards.map((card, i) => {
      const legal = legalByCard.get(card) || null;
      const verb = legal ? (legal.type === "discard" ? "discard" : legal.type === "farm" ? "put out" : "play") : "";
      const shown = cardLabel(card);
      const key = i < 5 ? `, key ${i + 1}` : "";
      const name = legal ? `${shown}, ${cardName(card)}: ${verb}${key}`
        : choosing ? `${shown}, ${cardName(card)}: not playable now${key}`
          : `${shown}, ${cardName(card)}`;
      return h("button", {
        type: "button",
        class: `card-button ${cardClasses(card)}${choosing && !legal ? " illegal" : ""}${choosing && legal ? " playable" : ""}`,
        // The fan: each card turned a little about a point below the hand.
        style: `--r: ${((i - (n - 1) / 2) * 4).toFixed(1)}deg; --y: ${((i - (n - 1) / 2) ** 2 * 2.5).toFixed(1)}px`,
        "data-testid": "card",
        "data-card": card,
        "data-legal": String(Boolean(legal)),
        "aria-disabled": legal ? "false" : "true",
        "aria-label": name,
        "aria-keyshortcuts": i < 5 ? String(i + 1) : null,
        title: legal ? `${capital(verb)} the ${cardName(card)}` : choosing ? "Not playable now: tap to see why" : cardName(card),
        onclick: () => onCard(card, legal),
      }, cardInside(card));
    });
    const discard = view.phase === "discard" && now;
    replace(el.hand,
      discard ? h("p", { class: "prompt", "data-testid": "discard-prompt" }, `Choose a card to discard (you took the ${cardLabel(hand.upcard)}).`) : null,
      h("div", { class: "cards fan", "data-count": String(n) }, cards),
      hand.my_discard ? h("p", { class: "small", "data-testid": "my-discard" }, `You discarded the ${cardLabel(hand.my_discard)}.`) : null,
      hand.cards_hidden ? h("p", { class: "small", "data-testid": "cards-hidden" }, "Your cards stay face down until you name the joker's suit.") : null,
      hand.sitting_out.includes(view.seat) ? h("p", { class: "small" }, "You sit this hand out: your partner went alone.") : null,
    );
    dealCards(cards);
  }

  // The bidding buttons: one per bid, and going alone as a toggle beside them (the
  // engine lists each bid twice, alone and not; the toggle picks which is sent).
  function renderActions() {
    const view = st.body.view;
    const now = myTurnNow();
    const bidding = now ? view.legal_actions.filter((a) => !a.card) : [];
    const canAlone = bidding.some((a) => a.alone);
    if (!canAlone) st.alone = false;
    const aloneOf = (action) => bidding.find((a) => a.type === action.type && (a.suit || null) === (action.suit || null) && a.alone) || null;
    const plain = bidding.filter((a) => !a.alone);
    replace(el.actions,
      plain.map((action) => {
        const chosen = st.alone && aloneOf(action) ? aloneOf(action) : action;
        return h("button", {
          type: "button",
          class: action.type === "pass" ? "secondary" : "primary",
          "data-testid": "action",
          "data-action": action.type,
          "data-alone": String(Boolean(chosen.alone)),
          "data-suit": action.suit || null,
          "aria-keyshortcuts": action.type === "pass" ? "P" : action.type === "order_up" ? "O" : null,
          onclick: () => post(chosen),
        }, actionButtonLabel(chosen, view));
      }),
    );
    el.alone.hidden = !canAlone;
    if (canAlone) {
      const box = h("input", { type: "checkbox", "data-testid": "alone-toggle", checked: st.alone, "aria-keyshortcuts": "A" });
      box.addEventListener("change", () => {
        st.alone = box.checked;
        // The buttons are drawn again: the focus stays where it was.
        const buttons = [...el.actions.querySelectorAll("button")];
        const at = buttons.indexOf(document.activeElement);
        const onToggle = el.alone.contains(document.activeElement);
        renderActions();
        if (at >= 0) el.actions.querySelectorAll("button")[at]?.focus();
        else if (onToggle) el.alone.querySelector("input")?.focus();
      });
      replace(el.alone, box, " Go alone");
    } else {
      replace(el.alone);
    }
    const body = st.body;
    el.hintButton.hidden = !(body.hints_allowed && body.status === "active") || spectator();
    el.hintButton.disabled = !now;
  }

  function renderInfo() {
    const body = st.body;
    const view = body.view;
    const hand = view.hand;
    const mine = spectator() ? null : teamOf(view.seat);
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
      if (hand.farmer !== undefined && hand.farmer !== null) {
        rows.push(h("dt", {}, "Farmer's hand"), h("dd", { "data-testid": "farmer" }, describeFarm(hand.farmer, hand.my_farm)));
      }
      if (hand.upcard === "JK" && hand.upcard_suit) {
        rows.push(h("dt", {}, "Joker turned up"), h("dd", { "data-testid": "joker-suit" }, `it counts as ${suitLabel(hand.upcard_suit)}`));
      }
      if (hand.bids.length) {
        rows.push(
          h("dt", {}, "Bidding"),
          h("dd", {}, h("ol", { class: "bids", "data-testid": "bids" },
            hand.bids.map((bid) => h("li", {}, describeAction(bid, who(bid.seat), hand, view.dealer, bid.seat))))),
        );
      }
    }
    if (view.last_hand) {
      const last = view.last_hand;
      // The farmers_hand option: the view names the last hand's farmer (null: none).
      const farm = last.farmer !== undefined && last.farmer !== null ? ` ${describeFarm(last.farmer, last.my_farm)}` : "";
      rows.push(h("dt", {}, "Last hand"), h("dd", { "data-testid": "last-hand" }, describeHandResult(last) + farm));
    }
    const o = body.options;
    const rules = [
      o.stick_the_dealer ? "stick the dealer" : "redeal if all pass",
      o.going_alone ? "going alone" : "no going alone",
      o.defending_alone ? "defending alone" : null,
      o.joker ? `joker (best bower; turned up: ${o.joker_upcard && o.joker_upcard !== "dealer_names" ? o.joker_upcard : "the dealer names its suit"})` : null,
      o.farmers_hand ? (o.farmers_hand_form === "redeal" ? "farmer's hand (a new deal)" : "farmer's hand") : null,
      o.no_ace_no_face_no_trump ? "no ace, no face, no trump redeal" : null,
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
    if (st.wake) st.wake();
    document.removeEventListener("keydown", onKey);
    document.removeEventListener("visibilitychange", onVisible);
    clearTimeout(st.clockTimer);
    clearTimeout(st.lateTimer);
    clearTimeout(st.queueTimer);
    clearTimeout(st.viewTimer);
    watchRematch(false);
    stopFollowing();
  };
}
