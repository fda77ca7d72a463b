"""People: accounts, a person's history and standing, and the ways people come to a table
together: quick play and rematch."""
