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
    ("Crawl-delay: " + "9" * 400, 1e12),  # past any wait: no overflow
    ("Crawl-delay: " + "9" * 400 + ".5", 1e12),
    ("Crawl-delay: " + "9" * 5000, 1e12),  # more digits than Python reads as an integer
    ("Crawl-delay: 000000000000000000002", 2.0),
    ("Crawl-delay: soon", 0.0),
    ("Crawl-delay: -5", 0.0),
])
def test_crawl_delay_in_seconds(line, seconds):
    assert crawl_delay(read_robots(f"User-agent: *\n{line}\nDisallow: /private/\n"), AGENT) == seconds
