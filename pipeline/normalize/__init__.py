"""Pure functions that turn raw documents into records. No network, no DuckDB."""
