"""Files: where everything lives in a home and how a file is written: paths and names (nothing outside the
workspace, no link followed), atomic 0600 writes, the locks other processes see (the turn lock among them) and a
file's settled stamp.

Spec: memory.md, "Where it lives". Imports `redaction` (a path or name is never a credential) and `base`.
"""
