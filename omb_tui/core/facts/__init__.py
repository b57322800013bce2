"""Facts: what a fact rests on and the checks it passes before anything is saved, shared by capture, a bot's team
proposals and every other step that keeps a fact from a conversation.

Spec: memory.md, "Checks before a dream saves a fact", "Memory upkeep" ("Noticing facts") and "Shared team memory
integrity". `lines` is who said what in a conversation (a line, its role, the people a bot talks with); `checks`
are the evidence checks (quotes, numbers, secrets, forgotten notes), each returning the one sentence that refuses.
"""
