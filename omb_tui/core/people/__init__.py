"""People of a Team Cloud home: each person, their token, and their own layer of a bot's memory; the owner's token.

Spec: memory.md, "HTTP routes" (last paragraph); docs/team-cloud.md. Imports `memory` and the floors below it.
"""
