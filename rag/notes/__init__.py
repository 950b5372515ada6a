"""Reading Obsidian notes: scanning, frontmatter, tags, links, embeds, and finding the files of a vault."""
