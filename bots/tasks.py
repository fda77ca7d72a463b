from celery import shared_task

from bots.services import computer_turn_play


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def play_computer_turn(match_id: str, expected_seq: int) -> bool:
    return computer_turn_play(match_id=match_id, expected_seq=expected_seq)
