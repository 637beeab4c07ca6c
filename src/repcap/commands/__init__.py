"""Sub-commands of the ``repcap`` CLI: one module per command, each with ``register(subparsers)``.
Modules import their heavy dependencies inside the handler so ``repcap --help`` stays fast."""
