"""The benchmark's ceiling: a trivial authenticated endpoint that inserts one row.

Installed only by benchmarks/bench_settings.py with BENCHMARK_ENDPOINTS=1; never
part of the service. Its table is made by its own migration, applied by benchmarks/api.py.
"""
