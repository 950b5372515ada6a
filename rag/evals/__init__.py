"""Answer evals: a golden set of questions, what a reply must contain, and how replies seen over the API score."""
