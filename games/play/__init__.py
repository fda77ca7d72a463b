"""Play: everything that changes a match (services), every read of it as a seat may see
it (selectors), and what follows an action: computer players' turns, turn timers, hints
and reviews, each queued through the one seam for tasks (later)."""
