#!/usr/bin/awk -f
# A pipe bot in awk: shed the card that costs the most points, keeping threes and eights
# while anything else can be played; answer with the move's index in "legal_moves".
#
# Run it under a referee with:  craits pipe -- sh bots/pipe/awk_bot.sh (mawk needs a flag)
# One JSON object per input line (format: docs/pipe-bots.md); one answer per line out.
# Plain POSIX awk plus fflush() after each answer, since awk's output to a
# pipe is block-buffered and the pipe waits for every answer.

BEGIN {
    # Points a card costs when left in hand, by rank.
    split("A 1 2 20 3 3 4 15 5 30 6 30 7 20 8 50 9 30 10 25 J 10 Q 10 K 10", kv, " ")
    for (i = 1; i < 40; i += 2) points[kv[i]] = kv[i + 1]
}

# The items of the JSON string array "key":[...] in `line`, into arr[0..n-1]; returns n.
function string_array(line, key, arr,    body, n, parts, i) {
    if (!match(line, "\"" key "\": *\\[[^]]*\\]")) return 0
    body = substr(line, RSTART, RLENGTH - 1)
    sub(/^[^[]*\[/, "", body)
    n = split(body, parts, ",")
    for (i = 1; i <= n; i++) { gsub(/^ *"|" *$/, "", parts[i]); arr[i - 1] = parts[i] }
    return n
}

# Higher is better: ordinary cards by points, then a 3, then an 8; draw and suit choices last.
function score(move,    words, rank) {
    if (split(move, words, " ") < 2 || words[1] != "play") return 0
    rank = substr(words[2], 1, length(words[2]) - 1)
    if (rank == "3") return 2
    if (rank == "8") return 1
    return 100 + points[rank]
}

{
    n = string_array($0, "legal_moves", moves)
    best = 0
    for (i = 1; i < n; i++) if (score(moves[i]) > score(moves[best])) best = i
    print best
    fflush()
}
