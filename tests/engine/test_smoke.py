import random

from games import engine as E


def test_a_seeded_match_of_random_legal_play_ends_with_one_winner():
    rng = random.Random(7)
    state = E.MatchState(E.Options(), first_dealer=3)
    while state.phase != E.FINISHED:
        state.deal(E.seeded_deck(rng))
        while state.phase not in (E.DEAL, E.FINISHED):
            legal = state.legal_actions()
            state.apply_action(state.turn, legal[rng.randrange(len(legal))])
    assert state.winner in (0, 1)
    assert state.scores[state.winner] >= 10
    assert state.scores[1 - state.winner] < 10
