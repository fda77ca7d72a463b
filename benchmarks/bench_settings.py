"""Benchmark-only settings: the production settings, plus (BENCHMARK_ENDPOINTS=1) the
ceiling endpoint /bench/ping. Used by benchmarks/api.py only; never deploy it.

Unlike production, CELERY_TASK_ALWAYS_EAGER=1 is honoured here, so a benchmark
can run the computer players' turns inside the API process instead of a worker.
"""

from euchre_service.settings import env_bool
from euchre_service.settings_production import *  # noqa: F403
from euchre_service.settings_production import INSTALLED_APPS, MIDDLEWARE

CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)

if env_bool("BENCHMARK_ENDPOINTS", False):
    INSTALLED_APPS = [*INSTALLED_APPS, "benchmarks.ceiling"]
    ROOT_URLCONF = "benchmarks.bench_urls"
    # Counts a request's SQL when it asks (X-Bench-Queries: 1); the others pay nothing.
    MIDDLEWARE = [
        "benchmarks.query_census.QueryCensusMiddleware",
        "benchmarks.query_census.WorkerPidMiddleware",
        *MIDDLEWARE,
    ]
