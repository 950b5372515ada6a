"""Answers that quote before they claim: the model names the passages and exact quotes that answer a question.

Code checks each quote against its passage (rag/answer/quotes.py); the answer is shown only from verified quotes and
cites their notes, and a question no quote answers is refused by the service, listing the closest notes.
"""
