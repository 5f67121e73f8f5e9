#!/usr/bin/env bash
# The smallest useful pipe bot: answer every decision with its first legal move.
#
# Run it under a referee with:  craits pipe -- bash bots/pipe/first_legal.sh
# Every line on stdin is one JSON object; the line format is in docs/pipe-bots.md. This bot
# needs one field, "legal_moves" (a list of move texts such as "play 8C suit=H" or "draw"),
# which both kinds of line carry: "decision" and "rejected". No JSON library: the move texts
# never contain quotes, so a regular expression finds the first one. Stdin closes at the end
# of the game, which ends the loop and the script.
set -u
first_move='"legal_moves": *\[ *"([^"]*)"'
while IFS= read -r line; do
  if [[ $line =~ $first_move ]]; then
    echo "${BASH_REMATCH[1]}"   # a move in text form, e.g. "play 7H" or "draw"
  else
    echo 0                      # or a legal-move index: 0 is always legal
  fi
done
