/**
 * A whole match through openapi-fetch and the types openapi-typescript made from the
 * schema (schema.d.ts, generated next to this file at test time, never committed).
 * Run by tests/clients/test_typescript_client.py: `tsc -p .` (strict) then
 * `node out/play.js <base url>`. No hand-written request or response types: every
 * path, body and answer is typed by the schema; no `any`, no casts.
 *
 * It signs in as a guest, creates a match with three computer players, plays the first
 * legal action whenever it is its turn (with expected_seq and an Idempotency-Key) until
 * the match is finished, fetches the replay and checks every deal's commitment. On
 * success it prints one JSON line the test reads.
 *
 * Typed only: the test fails on `any`, on a cast (`as`) and on a string-keyed read
 * (`x["key"]`) anywhere in this file.
 */
import { randomUUID } from "node:crypto";
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type MatchView = components["schemas"]["MatchView"];
type ActionRequest = components["schemas"]["ActionRequest"];
type Replay = components["schemas"]["Replay"];

const TARGET_SCORE = 3;
const MAX_ACTIONS = 1000;

function fail(what: string, answer: unknown): never {
  throw new Error(`typescript client: ${what}: ${JSON.stringify(answer)}`);
}

function firstLegalAction(view: MatchView): ActionRequest | null {
  const legal = view.view?.legal_actions[0];
  if (legal === undefined) return null;
  // A legal action is the body that takes it, as it is (both are unions on `type`).
  return { ...legal, expected_seq: view.seq };
}

function commitmentsVerified(replay: Replay): boolean[] {
  return replay.hands.map((hand) => hand.commitment_verified);
}

async function main(baseUrl: string): Promise<void> {
  const anonymous = createClient<paths>({ baseUrl });
  const guest = await anonymous.POST("/api/v1/auth/guest");
  if (guest.data === undefined) fail("guest sign-in", guest.error);
  const api = createClient<paths>({
    baseUrl,
    headers: { Authorization: `Token ${guest.data.token}` },
  });

  const created = await api.POST("/api/v1/matches", {
    body: {
      seats: [
        { kind: "me" },
        { kind: "computer", level: "random" },
        { kind: "computer", level: "random" },
        { kind: "computer", level: "random" },
      ],
      // the table variants on (docs/rules.md): their actions come up as legal actions
      options: { target_score: TARGET_SCORE, joker: true, farmers_hand: true, no_ace_no_face_no_trump: true },
    },
  });
  if (created.data === undefined) fail("create a match", created.error);
  if (created.data.you !== 0 || created.data.status !== "active") fail("the new match", created.data);
  const matchId = created.data.id;
  const path = { match_id: matchId };

  const read = async (): Promise<MatchView> => {
    const answer = await api.GET("/api/v1/matches/{match_id}", { params: { path } });
    if (answer.data === undefined) fail("read the match", answer.error);
    return answer.data;
  };

  let view = await read();
  let actions = 0;
  while (view.status !== "finished") {
    if (actions >= MAX_ACTIONS) fail("the match did not end", view.seq);
    const action = firstLegalAction(view);
    if (action === null) {
      // a computer player is still to move: look again shortly
      await new Promise((resolve) => setTimeout(resolve, 50));
      view = await read();
      continue;
    }
    const answer = await api.POST("/api/v1/matches/{match_id}/actions", {
      params: { path, header: { "Idempotency-Key": randomUUID() } },
      body: action,
    });
    if (answer.data === undefined) fail(`action ${JSON.stringify(action)}`, answer.error);
    actions += 1;
    view = await read();
  }

  const winner = view.winner_team;
  const best = Math.max(...view.scores);
  if (winner === null || best < TARGET_SCORE || view.scores[winner] !== best) {
    fail("the final state", view);
  }
  const replay = await api.GET("/api/v1/matches/{match_id}/replay", { params: { path } });
  if (replay.data === undefined) fail("the replay", replay.error);
  const verified = commitmentsVerified(replay.data);
  if (verified.length === 0 || !verified.every((ok) => ok)) fail("the deals' commitments", verified);
  if (replay.data.hands.length !== view.hands_played) {
    fail("hands in the replay", [replay.data.hands.length, view.hands_played]);
  }
  console.log(JSON.stringify({
    match: matchId,
    scores: view.scores,
    winner_team: winner,
    actions,
    hands: replay.data.hands.length,
  }));
}

const baseUrl = process.argv[2];
if (baseUrl === undefined) fail("usage", "node out/play.js <base url>");
await main(baseUrl);
