"""What both HTTP servers (`omb-tui serve` and `omb-tui mcp --http`) put between a client and their routes: the
connection guard (deadlines for a request's head and body, a cap below the descriptor limit, the oldest idle
connection closed first, one log line a second) and a log that never holds up the event loop. On the standard
library alone: each server wraps its own HTTP library's protocol object."""
