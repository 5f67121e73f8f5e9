"""The contest on the web (docs/contests.md, "Pages"): the pages ``craits contest serve`` shows
beside its JSON API, for people rather than programs.

Modules, by what they hold: ``board`` (the leaderboard's rows: the ladder's published board
and the versions not on it yet, with their trends), ``feed`` (the board's changes, one
shared snapshot however many readers), ``boardpage`` (the board's page and stream, rendered
once per change for every reader, with an ETag), ``history`` (a version's rating history and recent
games, read from the ladder's recorded games), ``signin`` (the token cookie a contestant or
the organiser signs in with), ``organiser`` (the organiser's view), ``viewer`` (a recorded game
in the static report's viewer), ``live`` (the games being played, watched over Server-Sent
Events, with the spectators' delay), ``sse`` (how every stream is answered: its keep-alive
and no caching), ``pages`` (the routes, rendered by the Jinja2 templates in
``templates/``), ``assets`` (the pages' scripts and stylesheet in ``static/``), ``headers``
(the security headers and the Content-Security-Policy), and ``mount`` (how the pages join the
API's application).

What a page may show is decided here once: a recorded game, whole hands and all, appears only
once it is recorded, and the ladder records a game only when it is over; a game in play is
shown to the public only through ``craits.contest.live``, which keeps nothing but its public
events (``Event.seen_by`` for a viewer with no seat), so no public page carries a hand, the
stock or a drawn card of a game in play; a version's logs, faults and reasons are its owner's
alone, as in the API. The organiser, signed in with the organiser's token, sees everything:
every version's logs, and the games in play whole (``craits.contest.livewhole``, which only the
organiser's routes read).
"""
