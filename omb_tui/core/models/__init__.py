"""Model calls and what a bot does with them: instances, the one call path, usage, a bot's tools and turn."""
