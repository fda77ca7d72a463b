"""Live: what the processes share as it happens, through Redis beside the database: the
news that a match has new events (and the hub each API process keeps of it), who is at a
table, and the shared cache, whose outages never fail a request."""
