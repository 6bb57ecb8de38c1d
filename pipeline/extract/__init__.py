"""Extract: the only code that asks sources for data. It writes what it gets to the raw store.

A transport (live HTTP or offline replay of a recorded run) is passed in, so the same extract
code drives both modes.
"""
