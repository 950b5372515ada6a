"""The command line (`librarian`): typer commands that call the shared services and print with rich."""
