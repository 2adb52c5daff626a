"""Verify: run environment code in a sandbox and check it against its own declarations.

Layers, outermost first: a child process in a jail (``runtime/jail.py``: its own mount,
pid, network, IPC, UTS and cgroup namespaces, uid 65534, no capabilities, a seccomp
filter; where bubblewrap is missing, a loud fallback to a fresh network namespace) with
a wall-clock timeout (``sandbox``), resource limits, per-call timers and an audit hook
installed before any code under test loads (``worker``), and in front of it all a
static gate (``static_gate``), a fast filter with precise messages. The parent never
imports the code under test.
"""
