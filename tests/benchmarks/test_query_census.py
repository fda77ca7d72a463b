"""The census's names for the statements it counts (benchmarks/query_census.py)."""

from benchmarks.query_census import statement


def test_a_statement_is_named_by_its_verb_and_its_own_table():
    assert statement('SELECT "games_match".* FROM "games_match" WHERE id IN (SELECT 1)') == (
        "SELECT games_match"
    )
    assert statement("SELECT * FROM games_match WHERE id = 1 FOR UPDATE") == (
        "SELECT games_match FOR UPDATE"
    )


def test_a_data_modifying_with_names_each_of_its_queries_in_order():
    one = "WITH appended AS (INSERT INTO games_event (a) VALUES (1)) UPDATE games_match SET a = 1"
    assert statement(one) == "INSERT games_event + UPDATE games_match"
    several = (
        "WITH moved AS (UPDATE games_match SET a = 1 WHERE id = 2 AND seq = 3 RETURNING 1),"
        " w1 AS (UPDATE games_hand SET x = 1 FROM moved WHERE games_hand.number = 1),"
        " w2 AS (INSERT INTO games_hand (a) SELECT 1::integer FROM moved)"
        " INSERT INTO games_event (a) SELECT v.* FROM moved, (VALUES (1)) AS v"
    )
    assert statement(several) == (
        "UPDATE games_match + UPDATE games_hand + INSERT games_hand + INSERT games_event"
    )
