"""What a run writes: actions planned from the model's output, checked again (stage 2) and applied as one change set."""
