"""Keeping secrets out: redaction of messages and logs, keys scrubbed from replies, masking of what is sent."""
