"""What ``craits check`` puts a bot through: scripted positions, and the conformance run.

    positions    the scripted positions (each a state built with ``Game.at_position``)
    conformance  the bot, launched (optionally sandboxed), answers each position and is judged
"""
