"""What the tests share: scripted model servers, helpers for each area's tests, fixtures and corpora."""
