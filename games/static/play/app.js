// The page: a hash router over its screens: the front page (play against computers or
// quick play with people in one click, signing in as a guest if need be; sign in; your
// matches), a custom match (the rules form, quick play's options), join by invite link,
// the table (a seat's, or a spectator's of a public match), the replay of a finished
// match, the public matches to watch, and your record.
//   #/              front page     #/match/<id>    the table
//   #/new           custom match
//   #/join/<id>     invite link    #/replay/<id>   replay
//   #/watch         public matches being played now
//   #/record        your rating, statistics, finished matches and the leaderboard
import { api, clearSession, session, setSession } from "./api.js";
import { LEVELS, capital, playerName, teamName } from "./cards.js";
import { showMatch } from "./match.js";
import { showRecord } from "./record.js";
import { showReplay } from "./replay.js";
import { applyDeck } from "./settings.js";
import { cardFace, errorBox, h, replace, showError } from "./ui.js";

const app = document.getElementById("app");
let teardown = null;

function parseRoute() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  return { name: parts[0] || "", id: parts[1] || "" };
}

export function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function updateTopbar() {
  const current = session();
  document.getElementById("who").textContent = current ? `Signed in as ${current.username}` : "";
  document.getElementById("signout").hidden = !current;
}

function route() {
  if (teardown) teardown();
  teardown = null;
  updateTopbar();
  const { name, id } = parseRoute();
  for (const link of document.querySelectorAll(".topnav a")) {
    const here = link.getAttribute("href") === `#/${name}`;
    if (here) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (!name) {
    teardown = showHome(app) || null;
    return;
  }
  if (!session()) {
    showSignIn(name === "join" ? `Sign in or play as a guest to take your seat.` : "Sign in, or play as a guest, first.");
    return;
  }
  const screens = { match: showMatch, replay: showReplay, join: showJoin };
  const pages = { watch: showWatch, record: showRecord, new: showCustom };
  // Own names only: "#/constructor" must not find Object's.
  const screen = Object.hasOwn(pages, name) ? pages[name]
    : Object.hasOwn(screens, name) && id ? screens[name] : showHome;
  teardown = screen(app, id, { go }) || null;
}

// A session for the one-click buttons: the one kept, or a new guest's.
async function ensureSession() {
  if (session()) return;
  const body = await api("POST", "auth/guest");
  setSession(body.token, body.username);
  updateTopbar();
}

// ------------------------------------------------------------------ sign in

function showSignIn(note) {
  replace(app, h("div", { class: "narrow-page" }, signInPanel(note, "h1")));
}

// Sign in, create an account, or go on as a guest: a panel of the front page (signed
// out), and the page shown for any other screen until then.
function signInPanel(note, heading = "h2") {
  const username = h("input", { id: "username", name: "username", autocomplete: "username", required: true, "data-testid": "username" });
  const password = h("input", { id: "password", name: "password", type: "password", autocomplete: "current-password", required: true, minlength: 8, "data-testid": "password" });
  const error = errorBox("sign-in-error");
  const buttons = [];

  async function signIn(register) {
    showError(error, null);
    if (!username.value || !password.value) {
      showError(error, { detail: "Enter a username and a password (8 characters or more)." });
      return;
    }
    buttons.forEach((b) => (b.disabled = true));
    try {
      const credentials = { username: username.value, password: password.value };
      if (register) await api("POST", "auth/register", credentials);
      const body = await api("POST", "auth/token", credentials);
      setSession(body.token, username.value);
      route();
    } catch (err) {
      showError(error, err);
    } finally {
      buttons.forEach((b) => (b.disabled = false));
    }
  }

  async function guest() {
    showError(error, null);
    buttons.forEach((b) => (b.disabled = true));
    try {
      const body = await api("POST", "auth/guest");
      setSession(body.token, body.username);
      route();
    } catch (err) {
      showError(error, err);
    } finally {
      buttons.forEach((b) => (b.disabled = false));
    }
  }

  const signInButton = h("button", { type: "submit", class: "primary", "data-testid": "sign-in" }, "Sign in");
  const registerButton = h("button", { type: "button", class: "secondary", "data-testid": "register", onclick: () => signIn(true) }, "Create account");
  const guestButton = h("button", { type: "button", class: "secondary", "data-testid": "guest", onclick: guest }, "Continue as a guest");
  buttons.push(signInButton, registerButton, guestButton);

  return h("section", { class: "panel sign-in", "data-testid": "sign-in-screen", "aria-labelledby": "sign-in-title" },
    h(heading, { id: "sign-in-title" }, heading === "h1" ? "Play Euchre" : "Sign in"),
    note ? h("p", { class: "note" }, note) : null,
    h("form", { onsubmit: (e) => { e.preventDefault(); signIn(false); } },
      h("label", { for: "username" }, "Username"), username,
      h("label", { for: "password" }, "Password"), password,
      h("div", { class: "row" }, signInButton, registerButton),
    ),
    h("p", { class: "small" }, "Or, without an account (a guest is not rated): ", guestButton),
    error,
  );
}

// ------------------------------------------------------------------ the front page

// Two ways to a dealt hand, one click each (as a guest if not signed in); the rest one
// step away: a custom match, watching, your record and the leaderboard.
function showHome(root) {
  const error = errorBox("home-error");
  const start = (make) => async (event) => {
    const button = event.currentTarget;
    showError(error, null);
    for (const b of root.querySelectorAll(".big-actions button")) b.disabled = true;
    button.setAttribute("aria-busy", "true");
    try {
      await ensureSession();
      const match = await make();
      go(`#/match/${match.id}`);
    } catch (err) {
      showError(error, err);
      for (const b of root.querySelectorAll(".big-actions button")) b.disabled = false;
      button.removeAttribute("aria-busy");
    }
  };
  const computers = h("button", {
    type: "button", class: "big primary", "data-testid": "play-computers",
    onclick: start(() => api("POST", "matches", {
      seats: [{ kind: "me" }, ...["west", "north", "east"].map(() => ({ kind: "computer", level: "medium" }))],
      options: { target_score: 10 },
      hints_allowed: true,
    })),
  }, h("span", { class: "big-title" }, "Play against computers"), h("span", { class: "big-sub" }, "Three computer players (medium), to 10 points, hints on"));
  const people = h("button", {
    type: "button", class: "big people", "data-testid": "play-people",
    onclick: start(() => api("POST", "quickplay", { preset: "standard", computers: true, level: "medium", turn_seconds: 30 })),
  }, h("span", { class: "big-title" }, "Quick play with people"), h("span", { class: "big-sub" }, "A public table; computers fill the seats no one takes"));
  const signedIn = Boolean(session());
  const list = h("ul", { class: "matches", "data-testid": "match-list" }, h("li", {}, "Loading…"));
  replace(root,
    h("section", { class: "hero", "data-testid": signedIn ? "lobby" : "front-page" },
      h("h1", {}, "Euchre"),
      h("p", { class: "tagline" }, "The trick-taking card game, one click from a dealt hand."),
      h("div", { class: "hero-fan", "aria-hidden": "true" },
        ["JH", "JD", "AH", "KH", "QH"].map((card, i) => {
          const face = cardFace(card);
          face.style.setProperty("--r", `${(i - 2) * 7}deg`);
          return face;
        })),
      h("div", { class: "big-actions" }, computers, people),
      error,
      h("nav", { class: "more", "aria-label": "More ways to play" },
        h("a", { href: "#/new", class: "tile", "data-testid": "custom-link" }, h("strong", {}, "Custom match"), h("span", {}, "Seats, rules, variants, turn timer, invite a friend")),
        h("a", { href: "#/watch", class: "tile", "data-testid": "watch-link" }, h("strong", {}, "Watch a match"), h("span", {}, "Public matches being played now")),
        h("a", { href: "#/record", class: "tile", "data-testid": "record-link" }, h("strong", {}, "Your record"), h("span", {}, "Rating, statistics, finished matches and the leaderboard")),
      ),
    ),
    signedIn
      ? h("section", { class: "panel" }, h("h2", {}, "Your matches"), list)
      : signInPanel(""),
  );
  if (signedIn) loadMatches(list);
  return null;
}

// ------------------------------------------------------------------ lobby

function seatSelect(name, initial) {
  return h("select", { id: `seat-${name}`, name, "data-testid": `seat-${name}` },
    LEVELS.map((level) => h("option", { value: `computer:${level}`, selected: level === initial }, `Computer: ${level}`)),
    h("option", { value: "open" }, "Open seat (invite a person)"),
  );
}

function checkbox(id, label, checked) {
  const input = h("input", { type: "checkbox", id, name: id, checked, "data-testid": `opt-${id}` });
  return { input, el: h("label", { class: "check", for: id }, input, ` ${label}`) };
}

// The turn timer's choices (the API takes 5 to 3600 s): long enough to read the table.
const TURN_TIMERS = [15, 30, 60, 120];

function showCustom(root, _id, { go }) {
  const seats = { west: seatSelect("west", "medium"), north: seatSelect("north", "medium"), east: seatSelect("east", "medium") };
  const target = h("input", { id: "target_score", type: "number", min: 1, max: 15, value: 10, required: true, "data-testid": "opt-target-score" });
  const stick = checkbox("stick_the_dealer", "Stick the dealer (the dealer must name trump if everyone passes twice)", true);
  const alone = checkbox("going_alone", "Going alone allowed", true);
  const defending = checkbox("defending_alone", "Defending alone allowed", false);
  // The table variants (docs/rules.md), each off unless chosen.
  const joker = checkbox("joker", "Joker: a 25th card, the highest trump (the best bower)", false);
  const jokerUpcard = h("select", { id: "joker_upcard", "data-testid": "opt-joker-upcard" },
    h("option", { value: "dealer_names" }, "the dealer names its suit (usual)"),
    ["clubs", "diamonds", "hearts", "spades"].map((suit) => h("option", { value: suit }, `it counts as ${suit}`)),
  );
  const farmers = checkbox("farmers_hand", "Farmer's hand: a hand of three or more nines and tens may exchange three of them for the cards under the upcard, or ask for a new deal", false);
  const farmersForm = h("select", { id: "farmers_hand_form", "data-testid": "opt-farmers-hand-form" },
    h("option", { value: "exchange" }, "exchange with the kitty (usual)"),
    h("option", { value: "redeal" }, "ask for a new deal"),
  );
  const nanfnt = checkbox("no_ace_no_face_no_trump", "No ace, no face, no trump: such a hand may call a redeal", false);
  const hints = checkbox("hints_allowed", "Hints allowed", true);
  const loneLead = h("select", { id: "lone_lead", "data-testid": "opt-lone-lead" },
    h("option", { value: "dealer_left" }, "the dealer's left (usual)"),
    h("option", { value: "loner_left" }, "the loner's left"),
    h("option", { value: "canadian" }, "Canadian loner"),
  );
  const turnTimer = h("select", { id: "turn_seconds", "data-testid": "opt-turn-seconds", "aria-describedby": "turn-timer-note" },
    h("option", { value: "", selected: true }, "Off"),
    TURN_TIMERS.map((seconds) => h("option", { value: String(seconds) }, `${seconds} s a turn`)),
  );
  const error = errorBox("create-error");
  const submit = h("button", { type: "submit", class: "primary", "data-testid": "create-match" }, "Start the match");

  async function create(event) {
    event.preventDefault();
    showError(error, null);
    const seatSpecs = [{ kind: "me" }];
    for (const name of ["west", "north", "east"]) {
      const value = seats[name].value;
      seatSpecs.push(value === "open" ? { kind: "open" } : { kind: "computer", level: value.split(":")[1] });
    }
    const body = {
      seats: seatSpecs,
      options: {
        target_score: Number(target.value),
        stick_the_dealer: stick.input.checked,
        going_alone: alone.input.checked,
        lone_lead: loneLead.value,
        defending_alone: defending.input.checked,
        // the variants only when chosen: the defaults stay out of the request
        ...(joker.input.checked ? { joker: true, joker_upcard: jokerUpcard.value } : {}),
        ...(farmers.input.checked ? { farmers_hand: true } : {}),
        ...(farmers.input.checked && farmersForm.value !== "exchange" ? { farmers_hand_form: farmersForm.value } : {}),
        ...(nanfnt.input.checked ? { no_ace_no_face_no_trump: true } : {}),
      },
      hints_allowed: hints.input.checked,
      turn_seconds: turnTimer.value ? Number(turnTimer.value) : null,
    };
    submit.disabled = true;
    try {
      const match = await api("POST", "matches", body);
      go(`#/match/${match.id}`);
    } catch (err) {
      showError(error, err);
      submit.disabled = false;
    }
  }

  replace(
    root,
    h("p", { class: "back-link" }, h("a", { href: "#/" }, "← Front page")),
    h("section", { class: "panel", "data-testid": "custom-match" },
      h("h1", {}, "Custom match"),
      h("form", { onsubmit: create, "data-testid": "new-match-form" },
        h("fieldset", {},
          h("legend", {}, "Seats (you sit south; north is your partner)"),
          h("div", { class: "grid3" },
            ...["west", "north", "east"].map((name) => h("div", {}, h("label", { for: `seat-${name}` }, capital(name)), seats[name])),
          ),
        ),
        h("fieldset", {},
          h("legend", {}, "Rules"),
          h("label", { for: "target_score" }, "Play to (1 to 15 points)"), target,
          stick.el, alone.el,
          h("label", { for: "lone_lead" }, "Against a loner, the first lead is from"), loneLead,
          defending.el,
          joker.el,
          h("label", { for: "joker_upcard" }, "When the joker is turned up"), jokerUpcard,
          farmers.el,
          h("label", { for: "farmers_hand_form" }, "With a farmer's hand, a player may"), farmersForm,
          nanfnt.el,
          hints.el,
          h("label", { for: "turn_seconds" }, "Turn timer"), turnTimer,
          h("p", { class: "small", id: "turn-timer-note" },
            "When a person's time runs out, a computer player plays for them until they come back."),
        ),
        submit,
        error,
      ),
    ),
    quickPlayPanel(go),
  );
  return null;
}

// Your matches, each with its score and the others at it; your turn marked.
function loadMatches(list) {
  api("GET", "matches?page_size=20")
    .then((page) => {
      if (!page.results.length) {
        replace(list, h("li", {}, "None yet."));
        return;
      }
      replace(list, page.results.map((m) => {
        const others = m.seats.filter((s) => !s.is_you).map(playerName).join(", ");
        const finished = m.status === "finished";
        const away = !finished && m.seats.some((s) => s.is_you && s.away);
        const turn = h("strong", { class: "your-turn-mark", "data-testid": "your-turn", hidden: true }, "Your turn");
        if (m.status === "active" && !away) markYourTurn(m.id, turn);
        return h("li", { "data-testid": "match-item", "data-status": m.status, "data-away": String(away), "data-match-id": m.id },
          turn,
          h("a", { href: `#/match/${m.id}` }, `${capital(m.status)}: ${m.scores[0]}–${m.scores[1]}`),
          ` with ${others}`,
          away ? h("strong", {}, " · your time ran out: a computer player is playing for you") : null,
          finished ? [" · ", teamName(m.winner_team), " won · ", h("a", { href: `#/replay/${m.id}` }, "Replay")] : null,
        );
      }));
    })
    .catch((err) => replace(list, h("li", { class: "error" }, err.detail)));
}

// ------------------------------------------------------------------ quick play

const PRESETS = [
  ["standard", "Standard: to 10, stick the dealer"],
  ["short", "Short: to 5"],
  ["no_stick", "No stick the dealer"],
  ["canadian", "Canadian loner, defending alone"],
];

function quickPlayPanel(go) {
  const preset = h("select", { id: "qp-preset", "data-testid": "qp-preset" },
    PRESETS.map(([value, label]) => h("option", { value }, label)));
  const computers = h("input", { type: "checkbox", id: "qp-computers", checked: true, "data-testid": "qp-computers" });
  const level = h("select", { id: "qp-level", "data-testid": "qp-level" },
    LEVELS.map((name) => h("option", { value: name, selected: name === "medium" }, capital(name))));
  const timer = h("select", { id: "qp-turn-seconds", "data-testid": "qp-turn-seconds" },
    h("option", { value: "", selected: true }, "Off"),
    TURN_TIMERS.map((seconds) => h("option", { value: String(seconds) }, `${seconds} s a turn`)));
  const error = errorBox("quickplay-error");
  const submit = h("button", { type: "submit", class: "primary", "data-testid": "quickplay" }, "Find a table");
  computers.addEventListener("change", () => { level.disabled = !computers.checked; });

  async function find(event) {
    event.preventDefault();
    showError(error, null);
    submit.disabled = true;
    try {
      const match = await api("POST", "quickplay", {
        preset: preset.value,
        computers: computers.checked,
        level: level.value,
        turn_seconds: timer.value ? Number(timer.value) : null,
      });
      go(`#/match/${match.id}`);
    } catch (err) {
      showError(error, err);
      submit.disabled = false;
    }
  }

  return h("section", { class: "panel", "data-testid": "quickplay-panel" },
    h("h2", {}, "Quick play, your way"),
    h("p", { class: "small" }, "A seat at a public table with people who asked for the same; anyone may watch it."),
    h("form", { onsubmit: find, "data-testid": "quickplay-form" },
      h("label", { for: "qp-preset" }, "Rules"), preset,
      h("label", { class: "check", for: "qp-computers" }, computers, " Computer players may take the seats no one takes"),
      h("label", { for: "qp-level" }, "Their level"), level,
      h("label", { for: "qp-turn-seconds" }, "Turn timer"), timer,
      h("div", { class: "row" }, submit),
      error,
    ),
  );
}

// ------------------------------------------------------------------ watch

function showWatch(root) {
  const list = h("ul", { class: "matches", "data-testid": "public-list" }, h("li", {}, "Loading…"));
  replace(root,
    h("section", { class: "panel", "data-testid": "watch-screen" },
      h("h1", {}, "Watch a match"),
      h("p", { class: "small" }, "Public matches being played now. You see what a spectator may: the bids, the cards played and the score, no one's hand."),
      list,
      h("p", {}, h("a", { href: "#/" }, "Front page")),
    ),
  );
  api("GET", "matches/public?page_size=50")
    .then((page) => {
      if (!page.results.length) {
        replace(list, h("li", { "data-testid": "no-public-matches" }, "No public match is being played now."));
        return;
      }
      replace(list, page.results.map((m) => h("li", { "data-testid": "public-item", "data-match-id": m.id },
        h("a", { href: `#/match/${m.id}` }, `${teamName(0)} ${m.scores[0]} – ${m.scores[1]} ${teamName(1)}`),
        ` · ${m.seats.map(playerName).join(", ")} · to ${m.options.target_score}`,
        m.watching ? ` · ${m.watching} watching` : "",
      )));
    })
    .catch((err) => replace(list, h("li", { class: "error" }, err.detail)));
  return null;
}

// The list does not say whose turn it is: each active match's view does.
async function markYourTurn(id, mark) {
  try {
    const body = await api("GET", `matches/${id}`);
    const yours = body.status === "active" && body.view.turn === body.view.seat;
    mark.hidden = !yours;
    if (mark.parentElement) mark.parentElement.setAttribute("data-your-turn", String(yours));
  } catch (err) {
    // The list is still right without the mark.
  }
}

// ------------------------------------------------------------------ join by invite link

function showJoin(root, id, { go }) {
  const error = errorBox("join-error");
  const button = h("button", { type: "button", class: "primary", "data-testid": "take-seat" }, "Take the open seat");
  button.addEventListener("click", async () => {
    showError(error, null);
    button.disabled = true;
    try {
      await api("POST", `matches/${id}/join`, {});
      go(`#/match/${id}`);
    } catch (err) {
      if (err.code === "already_seated") {
        go(`#/match/${id}`);
        return;
      }
      if (err.status === 404) err.detail = "This invitation is no longer open: the match has started or does not exist.";
      showError(error, err);
      button.disabled = false;
    }
  });
  replace(
    root,
    h("section", { class: "panel narrow", "data-testid": "join-screen" },
      h("h1", {}, "You are invited to a match of Euchre"),
      h("p", {}, "Take the open seat; the match starts when every seat is taken."),
      button,
      error,
    ),
  );
  return null;
}

// ------------------------------------------------------------------ start

document.getElementById("signout").addEventListener("click", async () => {
  try {
    await api("POST", "auth/logout");
  } catch (err) {
    // The token is forgotten here either way.
  }
  clearSession();
  go("#/");
});
window.addEventListener("euchre:signed-out", route);
window.addEventListener("hashchange", route);
applyDeck();
route();
