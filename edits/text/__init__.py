"""Pure text transforms of a note, shared by every front that edits: body, sections, tasks, frontmatter, links."""
