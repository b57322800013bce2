"""The sample home of `omb-tui demo`: five bots with weeks of history, and their conversations.

Sample data, kept out of `omb_tui.core` (the library a harness imports); it writes through the core like
the app does. The core never imports this package.
"""
