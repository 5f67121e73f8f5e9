"""What ``craits play`` needs to seat a person among bots: a terminal seat and its narration.

    narrate  the events of a game told in words as they happen, from the person's seat
    human    a seat whose decisions are typed at the terminal
"""
