"""Entry points of Vault Librarian: the CLI (and, later, the HTTP service) and their wiring."""
