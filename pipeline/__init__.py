"""casefile: a local, always-current knowledge base of Magic: The Gathering card rulings.

The package is laid out by stage: ``extract`` (the only network code), ``normalize`` and
``reconcile`` (pure functions), ``load`` (the only warehouse writer), and the readers
(``cli`` commands ``sql``, ``status``, ...) on read-only connections.
"""

__version__ = "0.1.0"
