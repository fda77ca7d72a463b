import pytest

from tests.games.server_support import ApiServer


@pytest.fixture
def servers():
    """Start real API processes (uvicorn) on the test database: servers(**env)."""
    started: list[ApiServer] = []

    def start(**env: str) -> ApiServer:
        started.append(ApiServer(**env).start())
        return started[-1]

    yield start
    for server in started:
        server.stop()
