"""What every front calls: answering, index, proposal and crew access (local or through a running serve)."""
