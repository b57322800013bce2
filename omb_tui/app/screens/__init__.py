"""One screen per file; each screen's styles live in styles/<name>.tcss, nested under its class."""
