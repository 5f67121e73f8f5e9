"""Hosting bot processes: starting them, isolating them, ending them.

A bot is an OS process that dials the referee; this package turns a bot SPEC into such a
process and keeps it in bounds, apart from refereeing (which plays games between seats and
never knows how a seat's process was started):

    spawn      child processes forked by the event loop's own thread, awaited through a pidfd
    sandbox    the bubblewrap sandbox of a command bot: namespaces, mounts, limits (as data)
    botgroup   control groups holding a sandboxed bot's whole process tree (CPU, memory, pids)
    launcher   a SPEC -> a running, watched process with its token and its log
    running    a fresh loopback referee with launched bots, for commands that drive seats
    match      exactly one game between bot processes (``craits match``)
"""
