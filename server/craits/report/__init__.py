"""Reading finished tournament games back: terminal replays and a static HTML report.

Everything here starts from the tournament store and rebuilds each game with the engine from
its rules, seed and moves (``steps``), so what is shown is what the engine says happened, and a
stored log that disagrees with its own moves is caught instead of being shown.

- ``stored``: one recorded game as plain values (``load_game``, ``iter_games``).
- ``steps``: the game replayed move by move, with the events each move caused.
- ``terminal``: ``craits replay``'s hand-by-hand text (events in words: ``craits.words``).
- ``frames``: the states the HTML viewer steps through.
- ``site``: ``craits report --html``: index page, plot and one viewer page per game.
"""
