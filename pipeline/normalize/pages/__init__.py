"""Page parsers: one pure module per site, each turning a fetched HTML page into records.

No network, no DuckDB. Each parser returns its page's dataclass or raises ParseError naming
the document; no other exception leaves them.
"""
