"""The Textual app: screens in screens/, small reusable widgets in widgets/, styles in styles/."""
