"""The journal: one row per change to a memory file, kept outside the workspace, and everything that reads it.

Spec: memory.md, "The journal". Rows and their reader (newest first), the filter, the revert text of a row, what
the store last saw of each file and the outside edits found against it, the change types every writer shares
(Actor, WriteResult) and the time windows (`--since`). Imports `files`, `redaction` and `base`.
"""
