"""Redaction: every detector that keeps a credential off the disk, and the forgotten words' hashes.

Spec: memory.md, "Editing" (credentials are never written) and "Remember and forget, in chat" (a forgotten fact is
never learned again). `redact` is the one entry; each other module is one family of detectors (vendor prefixes, key
assignments, tokens, pasted blocks, values) and `data` redacts every field of a decoded structure. Imports only
`base` (docs/redaction.md, docs/architecture.md).
"""
