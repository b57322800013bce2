"""Base: what every floor of the core reads, and nothing else: the one clock (the person's time zone, the tests'
shift), the exit-status and HTTP-status table of refusals, plural and small text helpers, and the checks a text must
pass to be saved. Imports nothing of the project (docs/architecture.md).
"""
