"""The web UI served at `/`: what the librarian did and is about to do (index, proposals, changes, crews)."""
