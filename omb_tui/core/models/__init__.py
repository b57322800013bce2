"""The model layer: connected instances and the helper, the one call path, usage and the spend limit.

Spec: memory.md, "The helper model"; docs/models.md. Every model call of the project goes through
`omb_tui.core.models.call.complete` (or `acomplete`); litellm is imported only there, when a call is about to
be made. This package imports none of its modules itself, so importing it costs nothing.
"""
