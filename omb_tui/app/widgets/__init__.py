"""Small reusable widgets, one per file."""
