"""Modal dialogs (ModalScreen[T]), one per file: each returns its answer through dismiss(), awaited with
push_screen_wait inside a worker; their styles are in styles/dialogs.tcss."""
