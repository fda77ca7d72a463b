"""The strict input serializers' fields (games/http/api_support.py): each serializer instance
binds copies of its own, made without DRF's deep copy for a plain field."""

import threading

from rest_framework import serializers

from games.http.api_support import StrictSerializer
from games.http.apis import MatchActionApi

Action = MatchActionApi.MatchActionInputSerializer


class WithAList(StrictSerializer):
    cards = serializers.ListField(child=serializers.CharField(max_length=3), max_length=5)
    note = serializers.CharField(max_length=4)


class WithADefault(StrictSerializer):
    tags = serializers.JSONField(required=False, default=[])


def test_each_serializer_binds_fields_of_its_own_never_the_declared_ones():
    first, second = Action(data={}), Action(data={})
    for name, declared in Action._declared_fields.items():
        mine, theirs = first.fields[name], second.fields[name]
        assert mine is not theirs and mine is not declared and theirs is not declared
        assert mine.parent is first and theirs.parent is second
        assert declared.parent is None  # the class's own field is never bound
        assert mine.validators is not theirs.validators
        assert mine.validators is not declared.validators
        assert [type(v) for v in mine.validators] == [type(v) for v in declared.validators]


def test_a_string_field_keeps_whitespace_without_changing_the_declared_field():
    serializer = WithAList(data={"cards": ["9C"], "note": " ab "})
    assert serializer.is_valid(), serializer.errors
    assert serializer.validated_data["note"] == " ab "
    assert WithAList._declared_fields["note"].trim_whitespace is True


def test_a_list_s_items_are_bound_to_this_serializer_s_own_list():
    serializer = WithAList(data={})
    cards = serializer.fields["cards"]
    assert cards.child.parent is cards and cards.parent is serializer
    assert cards.child is not WithAList._declared_fields["cards"].child


def test_the_limits_of_every_field_still_apply():
    serializer = WithAList(data={"cards": ["9C", "TENS"], "note": "toolong"})
    assert not serializer.is_valid()
    assert set(serializer.errors) == {"cards", "note"}
    action = Action(data={"type": "play", "card": "JHXX", "expected_seq": -1})
    assert not action.is_valid()
    assert set(action.errors) == {"card", "expected_seq"}


def test_serializers_validating_at_once_in_threads_do_not_mix_their_answers():
    wrong: list[object] = []

    def validate(seq: int) -> None:
        for _ in range(300):
            serializer = Action(data={"type": "play", "card": "9C", "expected_seq": seq})
            if not serializer.is_valid() or serializer.validated_data["expected_seq"] != seq:
                wrong.append((seq, serializer.errors))

    threads = [threading.Thread(target=validate, args=(seq,)) for seq in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


def test_a_default_list_is_each_serializer_s_own():
    first = WithADefault(data={})
    assert first.is_valid(), first.errors
    first.validated_data["tags"].append("changed by one request")
    second = WithADefault(data={})
    assert second.is_valid(), second.errors
    assert second.validated_data["tags"] == []
