"""The command line: ``repcap stats|pack|toy|run|book|bundle|models`` (:mod:`.app` builds the parser,
:mod:`.commands` holds one module per sub-command).

It may import every other part; nothing imports it but ``python -m repcap``.
"""

from .app import main

__all__ = ["main"]
