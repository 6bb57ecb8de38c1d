"""robots.txt rules as RFC 9309 reads them: the longest match decides, Allow on a tie, "*" and "$"
in paths (section 2.2.3); and its Crawl-delay in seconds. The robots.txt texts are constructed;
live syncs that obey one are in tests/test_sync_live.py."""

from __future__ import annotations

import pytest

from pipeline.extract.pages import _can_fetch, crawl_delay, read_robots

AGENT = "casefile/0.1.0 (+ops@example.org)"


def allowed(robots: str, path: str) -> bool:
    return _can_fetch(read_robots(robots), AGENT, f"https://listeblanche.fr{path}")


@pytest.mark.parametrize("robots, path, expected", [
    # "*" matches any sequence of characters, "/" included
    ("Disallow: /carte/*/print", "/carte/mkc/print", False),
    ("Disallow: /carte/*/print", "/carte/mkc/printable", False),  # a rule matches a path's start
    ("Disallow: /carte/*/print", "/carte/mkc/case-of-the-shifting-visage-mkc-19", True),
    ("Disallow: /*.php", "/recherche/index.php?q=case", False),
    ("Disallow: *.php", "/index.php", False),
    ("Disallow: /*", "/carte/mkc/x", False),
    ("Disallow: /a*b*c*d*e*f*g*h*i*j*k*z", "/" + "abcdefghijk" * 40, True),  # no backtracking to wait for
    # "$" at the end anchors the rule to the end of the path (the query is part of it)
    ("Disallow: /*.php$", "/index.php", False),
    ("Disallow: /*.php$", "/index.php?q=case", True),
    ("Disallow: /*.php$", "/index.php5", True),
    ("Disallow: /carte/$", "/carte/", False),
    ("Disallow: /carte/$", "/carte/mkc/x", True),
    ("Disallow: /a$b", "/a$b", False),  # "$" elsewhere is the character
    ("Disallow: /a$b", "/a", True),
    # a percent-escaped "*", "$" or "%" is that character, never a wildcard or an anchor
    ("Disallow: /fichier-%2A.html", "/fichier-x.html", True),
    ("Disallow: /fichier-%2A.html", "/fichier-*.html", False),
    ("Disallow: /fichier-%2a.html", "/fichier-%2A.html", False),
    ("Disallow: /prix%24", "/prix$5", False),
    ("Disallow: /prix%24", "/prix", True),
    ("Disallow: /100%25", "/100%25-off", False),
    ("Disallow: /x%2541", "/x%2541", False),  # the literal text "%41"
    ("Disallow: /x%2541", "/xA", True),
    # a path and a rule compare decoded, however each was written
    ("Disallow: /carte/é", "/carte/%C3%A9t%C3%A9", False),
    ("Disallow: /carte/%C3%A9", "/carte/été", False),
])
def test_wildcards_and_end_anchors_in_rule_paths(robots, path, expected):
    assert allowed(f"User-agent: *\n{robots}\n", path) is expected


@pytest.mark.parametrize("rules, path, expected", [
    # the rule matching with the most octets decides, whatever the order of the lines
    ("Allow: /\nDisallow: /carte/", "/carte/mkc/x", False),
    ("Disallow: /carte/\nAllow: /carte/*/case-of-", "/carte/mkc/case-of-the-shifting-visage-mkc-19", True),
    ("Disallow: /carte/\nAllow: /carte/*/case-of-", "/carte/mkc/other", False),
    ("Disallow: /\nAllow: /$", "/", True),
    ("Disallow: /\nAllow: /$", "/carte/", False),
    ("Allow: /*.html$\nDisallow: /carte/", "/carte/x.html", True),  # 8 octets against 7
    # a tie goes to Allow: "/carte/" and "/*/mkc/" are both 7 octets
    ("Disallow: /carte/\nAllow: /*/mkc/", "/carte/mkc/x", True),
    ("Allow: /*/mkc/\nDisallow: /carte/", "/carte/mkc/x", True),
    # an empty Disallow allows everything
    ("Disallow:", "/carte/mkc/x", True),
])
def test_the_most_specific_rule_decides(rules, path, expected):
    assert allowed(f"User-agent: *\n{rules}\n", path) is expected


def test_the_group_of_the_user_agent_is_the_one_read():
    robots = "User-agent: casefile\nDisallow: /*/print$\n\nUser-agent: *\nDisallow: /\n"
    assert allowed(robots, "/carte/mkc/x")
    assert not allowed(robots, "/carte/mkc/print")


@pytest.mark.parametrize("line, seconds", [
    ("Crawl-delay: 5", 5.0),
    ("Crawl-delay: 2.5", 3.0),  # never quicker than asked: rounded up to whole seconds
    ("crawl-delay:0.2  # a fifth of a second", 1.0),
    ("Crawl-delay: 86400.0", 86400.0),
    ("Crawl-delay: 3.", 3.0),
    ("Crawl-delay: " + "9" * 12, 999999999999.0),  # twelve digits are read as they are
    ("Crawl-delay: 2" + "0" * 12, 1e12),  # thirteen are past any wait
    ("Crawl-delay: " + "9" * 400, 1e12),  # past any wait: no overflow
    ("Crawl-delay: " + "9" * 400 + ".5", 1e12),
    ("Crawl-delay: " + "9" * 5000, 1e12),  # more digits than Python reads as an integer
    ("Crawl-delay: 000000000000000000002", 2.0),
    ("Crawl-delay: soon", 0.0),
    ("Crawl-delay: -5", 0.0),
])
def test_crawl_delay_in_seconds(line, seconds):
    assert crawl_delay(read_robots(f"User-agent: *\n{line}\nDisallow: /private/\n"), AGENT) == seconds


@pytest.mark.parametrize("rules, path, expected", [
    # a rule ending in "?" (or ";") keeps it: "/*?" is the URLs with a query, not every URL
    ("Disallow: /*?", "/carte/mkc/case-of-the-shifting-visage-mkc-19", True),
    ("Disallow: /*?", "/carte/mkc/x?print=1", False),
    ("Disallow: /?", "/carte/", True),
    ("Disallow: /carte/\nAllow: /carte/*?", "/carte/mkc/x", False),
    ("Disallow: /carte/\nAllow: /carte/*?", "/carte/mkc/x?lang=en", True),
    ("Disallow: /carte;", "/carte/mkc/x", True),
])
def test_a_rule_ending_in_a_question_mark_keeps_it(rules, path, expected):
    """Python's urllib.robotparser, read through before, rebuilt each rule's path with urlunparse,
    which drops an empty query: "Disallow: /*?", a common rule, left a source out of every run."""
    assert allowed(f"User-agent: *\n{rules}\n", path) is expected


@pytest.mark.parametrize("lines", ["Crawl-delay: 10\nCrawl-delay: 2", "Crawl-delay: 2\nCrawl-delay: 10",
                                   "Crawl-delay: 2\nCrawl-delay: 10\nCrawl-delay: soon"])
def test_the_longest_of_a_group_s_crawl_delays_is_the_one_kept(lines):
    assert crawl_delay(read_robots(f"User-agent: *\n{lines}\nDisallow: /private/\n"), AGENT) == 10.0


def test_groups_for_the_same_user_agent_are_merged_with_their_crawl_delays():
    """RFC 9309 (2.2.1): groups that apply to the same user agent are one group. Before, only the
    first "*" group counted: a later group's rules and Crawl-delay went unread."""
    robots = "User-agent: *\nDisallow: /admin/\n\nUser-agent: *\nDisallow: /carte/\nCrawl-delay: 10\n"
    assert not allowed(robots, "/carte/mkc/x") and not allowed(robots, "/admin/")
    assert crawl_delay(read_robots(robots), AGENT) == 10.0
    named = "User-agent: casefile\nDisallow: /a/\nCrawl-delay: 2\n\nUser-agent: *\nDisallow: /\n\n" \
            "User-agent: CaseFile\nDisallow: /b/\nCrawl-delay: 4\n"
    assert not allowed(named, "/a/x") and not allowed(named, "/b/x") and allowed(named, "/carte/x")
    assert crawl_delay(read_robots(named), AGENT) == 4.0


@pytest.mark.parametrize("robots, expected", [
    ("User-agent: file\nDisallow: /\n\nUser-agent: *\nAllow: /\n", True),  # not casefile's group
    ("User-agent: case\nDisallow: /\n", True),
    ("User-agent: casefile/0.1.0\nDisallow: /\n", False),  # the product token, its version aside
    ("User-agent: CASEFILE\nDisallow: /\n", False),
    ("User-agent: googlebot\nUser-agent: casefile\nDisallow: /\n", False),  # a group of two agents
    ("Disallow: /\nUser-agent: *\nAllow: /carte/\n", True),  # a rule before any group is none
])
def test_a_group_applies_by_the_product_token_not_a_part_of_it(robots, expected):
    """Before, a group applied when its User-agent was any part of casefile's ("file", "case"),
    and not when it named casefile with a version."""
    assert allowed(robots, "/carte/mkc/x") is expected
