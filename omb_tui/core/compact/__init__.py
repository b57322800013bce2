"""Compaction: the model proposes a change-set for MEMORY.md (delete or merge), code validates and applies it.

Spec: compact-memory.en.md ("compact-memory", its English rendering), docs/compact.md and docs/compact-nightly.md. The model
answers one JSON object of changes in six categories (superseded, detail, duplicate, ephemeral, stale-section,
merge); `validator` checks each change against the file exactly as it is (verbatim, found once, no overlap, merges
shorter and inside one `###` subsection, at most half the file deleted, the keep list, health lines and the person's
rules never removed) and applies a valid set by byte span only when the file's sha256 is still the one the model read.
docs/compact.md gives every decision.
"""
