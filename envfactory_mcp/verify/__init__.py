"""Verify: run environment code in a sandbox and check it against its own declarations.

Layers, outermost first: a child process in its own process group with a wall-clock
timeout (``sandbox``), no network (a fresh network namespace where the machine allows
it), resource limits and an audit hook installed before any code under test loads
(``worker``), and for code that did not come from this repository a static gate
(``static_gate``). The parent never imports the code under test.
"""
