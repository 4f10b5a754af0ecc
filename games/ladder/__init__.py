"""The streak ladder against the computer (RULES.md L): runs of ``dos`` matches against the built-in
bots, each won match raising the rival a level, and the best score of each player."""
