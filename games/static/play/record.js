// Your record (#/record): your rating and place, your statistics (in all, against people
// and against each computer level), your finished matches a page at a time (the API's
// cursor), and the leaderboard. Everything from GET /users/{you}/stats,
// /users/{you}/matches and /leaderboard.
import { api, session } from "./api.js";
import { LEVELS } from "./cards.js";
import { errorBox, h, replace, showError } from "./ui.js";

const GROUPS = [["all", "All matches"], ["people", "Against people"],
  ...LEVELS.map((l) => [l, `Against computers: ${l}`]), ["mixed", "Mixed"]];

// A rating (mu - 3 sigma) as shown: one decimal; a change with its sign.
export const ratingText = (value) => value.toFixed(1);
export const changeText = (value) => `${value >= 0 ? "+" : "−"}${Math.abs(value).toFixed(1)}`;
const percent = (value) => (value === null ? "–" : `${Math.round(value * 100)} %`);
const decimal = (value) => (value === null ? "–" : value.toFixed(2));

export function showRecord(root) {
  const me = session().username;
  const error = errorBox("record-error");
  const rating = h("div", { class: "panel", "data-testid": "my-rating" }, h("p", {}, "Loading…"));
  // On a phone the table scrolls sideways inside its box: a region the keyboard can scroll.
  const figures = h("div", { class: "table-scroll", "data-testid": "my-stats", tabindex: "0", role: "region", "aria-label": "Statistics" });
  const list = h("ul", { class: "matches", "data-testid": "history" });
  const more = h("button", { type: "button", class: "secondary", "data-testid": "history-more", hidden: true }, "Older matches");
  const board = h("ol", { class: "leaderboard", "data-testid": "leaderboard" });
  let next = null;

  replace(root,
    h("section", { class: "panel", "data-testid": "record" },
      h("h1", {}, "Your record"),
      h("p", {}, h("a", { href: "#/" }, "Back to the lobby")),
      error,
      h("h2", {}, "Rating"), rating,
      h("h2", {}, "Statistics"), figures,
      h("h2", {}, "Finished matches"), list, more,
      h("h2", {}, "Leaderboard"), board,
    ),
  );

  async function load() {
    try {
      const [stats, leaders] = await Promise.all([
        api("GET", `users/${encodeURIComponent(me)}/stats`),
        api("GET", "leaderboard?limit=10"),
      ]);
      showRating(stats);
      showFigures(stats);
      showBoard(leaders);
      await page(`users/${encodeURIComponent(me)}/matches?page_size=10`);
    } catch (err) {
      showError(error, err);
    }
  }

  function showRating(stats) {
    if (stats.rating) {
      const r = stats.rating;
      replace(rating,
        h("p", { class: "big" }, h("strong", { "data-testid": "rating-value" }, ratingText(r.rating))),
        h("p", {}, `Place ${r.place} of the rated people, after ${r.matches} rated match${r.matches === 1 ? "" : "es"}.`),
      );
    } else {
      replace(rating, h("p", { "data-testid": "rating-none" }, stats.guest
        ? "Guests are not rated: create an account to get a rating."
        : "Not rated yet: finish a match to get a rating."));
    }
  }

  function showFigures(stats) {
    const row = (key, label) => {
      const f = stats[key];
      return h("tr", { "data-group": key },
        h("th", { scope: "row" }, label),
        h("td", {}, String(f.matches)), h("td", {}, percent(f.win_rate)),
        h("td", {}, decimal(f.points_per_hand)), h("td", {}, percent(f.made_trump_rate)),
        h("td", {}, percent(f.euchred_rate)), h("td", {}, `${f.alone_made} of ${f.alone_tried}`));
    };
    replace(figures, h("table", { class: "figures" },
      h("caption", {}, "Euchred: of the hands you made trump. Lone hands: made of called."),
      h("thead", {}, h("tr", {}, ["", "Matches", "Won", "Points a hand", "Made trump", "Euchred", "Lone hands"]
        .map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, GROUPS.filter(([key]) => key === "all" || stats[key].matches).map(([key, label]) => row(key, label))),
    ));
  }

  function showBoard(leaders) {
    const entries = leaders.top.map((e) => h("li", { "data-testid": "leader", "data-you": String(e.username === me) },
      `${e.username}: ${ratingText(e.rating)} (${e.matches} match${e.matches === 1 ? "" : "es"})`,
      e.username === me ? h("strong", {}, " — you") : null));
    const you = leaders.you;
    replace(board, entries.length ? entries : h("li", {}, "No one is rated yet."));
    if (you && !leaders.top.some((e) => e.username === me)) {
      board.after(h("p", { "data-testid": "your-place" }, `You: place ${you.place}, ${ratingText(you.rating)}.`));
    }
  }

  function item(m) {
    const who = (p) => (p.kind === "human" ? p.username : `computer (${p.level})`);
    const partner = m.players.find((p) => p.seat === (m.seat + 2) % 4);
    const against = m.players.filter((p) => p.seat % 2 !== m.team).map(who);
    const day = new Date(m.finished_at).toLocaleString();
    return h("li", { "data-testid": "history-item", "data-result": m.result, "data-match-id": m.match },
      h("strong", {}, m.result === "won" ? "Won" : "Lost"),
      ` ${m.scores[0]}–${m.scores[1]} · ${day} · partner ${who(partner)}, against ${against.join(" and ")}`,
      m.left ? " · you left before the end" : "",
      m.rating ? h("span", { "data-testid": "history-rating" }, ` · rating ${changeText(m.rating.change)}`) : "",
      " · ", h("a", { href: `#/replay/${m.match}` }, "Replay"));
  }

  async function page(path) {
    const body = await api("GET", path);
    if (!list.children.length && !body.results.length) replace(list, h("li", {}, "None yet."));
    list.append(...body.results.map(item));
    next = body.next ? body.next.slice(body.next.indexOf("/api/v1/") + "/api/v1/".length) : null;
    more.hidden = !next;
  }

  more.addEventListener("click", async () => {
    more.disabled = true;
    try {
      const first = list.children.length;
      await page(next);
      list.children[first]?.querySelector("a")?.focus();  // keyboard: on to the new ones
    } catch (err) {
      showError(error, err);
    } finally {
      more.disabled = false;
    }
  });

  load();
  return null;
}
