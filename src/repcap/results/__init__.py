"""The results store above the engines: the named point sets that a profile computes outside the
chapters (:mod:`.runs`) and the shipped results bundles (:mod:`.bundle`: export, import, status,
compare).

It may import :mod:`repcap.engines`, :mod:`repcap.sweep`, :mod:`repcap.models` and
:mod:`repcap.base`.
"""
