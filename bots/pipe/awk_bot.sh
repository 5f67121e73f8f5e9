#!/bin/sh
# Runs awk_bot.awk with one line at a time on its input:  craits pipe -- sh bots/pipe/awk_bot.sh
# mawk (Debian's default awk) fills its whole input buffer before it hands over a line unless
# it is given -W interactive; the pipe sends the next line only after the answer, so without
# the flag each would wait for the other forever. gawk and busybox awk need no flag.
here=$(dirname "$0")
case $(awk -W version 2>&1) in
  *mawk*) exec awk -W interactive -f "$here/awk_bot.awk" ;;
  *) exec awk -f "$here/awk_bot.awk" ;;
esac
