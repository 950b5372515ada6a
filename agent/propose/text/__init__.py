"""Pure text transforms of a note for the write tools: body, frontmatter, links and templates."""
