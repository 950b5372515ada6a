"""The crews of a vault: the catalog of team and agent notes, and the schedules the user enabled."""
