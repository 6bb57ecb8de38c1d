"""What a build pays per text to find an edition's glossary patterns, on a SYNTHETIC edition of a
full one's size (3,000 rules, 700 glossary entries; the project holds only a 14-rule excerpt of
the Comprehensive Rules). A build looks the edition up once per text it links: 105,000 texts at
the bench's 1×.

    python -m bench.rules_lookup
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline import rules_link  # noqa: E402
from pipeline.normalize.rules import GlossaryEntry, Rule, RulesDocument  # noqa: E402

RULES, ENTRIES, LOOKUPS = 3000, 700, 20_000


def main() -> None:
    rules = tuple(Rule(f"{100 + i // 40}.{i % 40}", None, None, f"Synthetic rule text {i}. " * 5, i)
                  for i in range(RULES))
    glossary = tuple(GlossaryEntry(f"Synthetic Term {i}", f"See rule {100 + i % 50}.{i % 30}.") for i in range(ENTRIES))
    edition = RulesDocument("2024-09-20", rules, glossary)
    rules_link._wanted_glossary(edition, None)  # the patterns, compiled once
    started = time.perf_counter()
    for _ in range(LOOKUPS):
        rules_link._wanted_glossary(edition, None)
    per = (time.perf_counter() - started) / LOOKUPS
    print(f"edition of {RULES} rules and {ENTRIES} glossary entries (SYNTHETIC): {per * 1e6:.1f} us a lookup, "
          f"{per * 105_000:.2f} s for the 105,000 texts of the bench's 1x")


if __name__ == "__main__":
    main()
