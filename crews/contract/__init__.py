"""The model's side of a task (stage 1): the material and prompt it reads, the output schemas, binding its reply."""
