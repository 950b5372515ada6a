"""`python -m app.cli`: the same as the `librarian` command."""

from app.cli.main import main

main()
