"""A SYNTHETIC edition of the Comprehensive Rules at a full edition's size, for measuring what a
build's rules links cost at scale. The project holds only a 14-rule excerpt of the real rules.

Nine sections of 34 rules, each rule with three subrules and up to seven lettered ones (4,472
numbered rules in all), and a glossary of 700 entries: 20 of them are words the bench's synthetic
rulings and cards use ("Sacrifice", "Token", "Case", ...), so that they are linked, the rest
named "Synthetic Term N". Every text says "Synthetic". Written in the layout ``parse_cr`` reads;
deterministic.

    python -m bench.generate_cr > bench/out/cr_synthetic.txt
    casefile rules ingest bench/out/cr_synthetic.txt
"""

from __future__ import annotations

import sys

LINKED_TERMS = ["Sacrifice", "Token", "Library", "Battlefield", "Exile", "Counter", "Attack", "Damage",
                "Graveyard", "Control", "Target", "Hand", "Copy", "Trample", "Mana Value", "Case", "Solved",
                "Enchantment", "Creature", "Player"]
FILLER_TERMS = 680
SECTIONS = range(1, 10)
RULES_PER_SECTION = 34


def edition() -> str:
    lines = ["Magic: The Gathering Comprehensive Rules", "",
             "These rules are effective as of September 20, 2024. (SYNTHETIC edition)", "", "Contents", ""]
    lines += [f"{s}. Synthetic Section {s}" for s in SECTIONS]
    lines += ["Glossary", "", "Credits", ""]
    for s in SECTIONS:
        lines += [f"{s}. Synthetic Section {s}", ""]
        for rule in range(s * 100, s * 100 + RULES_PER_SECTION):
            lines += [f"{rule}. Synthetic rule {rule}", ""]
            for sub in range(1, 4):
                word = LINKED_TERMS[(rule + sub) % len(LINKED_TERMS)].lower()
                lines += [f"{rule}.{sub}. Synthetic rule text {rule}.{sub} about the {word}.", ""]
                for letter in "abcdefg"[: (rule + sub) % 8]:
                    lines += [f"{rule}.{sub}{letter} Synthetic subrule {rule}.{sub}{letter}; see rule {rule}.{sub}.", ""]
    lines += ["Glossary", ""]
    for i, term in enumerate(LINKED_TERMS):
        lines += [term, f"A synthetic definition. See rule {100 + i * 3}.1.", ""]
    for i in range(FILLER_TERMS):
        lines += [f"Synthetic Term {i}", f"A synthetic definition. See rule {100 + i % 800}.2.", ""]
    lines += ["Credits", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(edition())
