"""Shared team memory: teams of bots that load the same reviewed notes (spec: memory.md, "Shared team memory
integrity"). `model` is the file format, `storage` the files and the lock, `notes` the rules of a note's
revisions, `prompt` the block and its gauge, `proposals` a bot's `team_note` and its checks, `capture` the cards
capture proposes from a team's rooms, `api` the one-step changes the command line and the app call. What
session_search finds in the notes is search/team_notes.py (search sits above team and recall, which never import
each other). docs/team.md has every decision."""
