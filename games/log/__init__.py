"""The log: the event vocabulary, the one writer of events and the fold that turns them
into state, the log's storage (rows, chunks, the archive) and its check, fair dealing,
and what is derived from the log (match summaries, hand rows, each person's record and
rating) or read from it (the log cut into hands, reads that may go to a replica)."""
