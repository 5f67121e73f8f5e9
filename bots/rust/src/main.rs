//! A Craits bot in Rust, as a pipe bot: `craits pipe` does the talking to the referee and runs
//! this program once per game, writing one JSON object per line on its stdin (a "decision", or
//! a "rejected" answer to answer again) and reading one move per line from its stdout
//! (docs/pipe-bots.md). The strategy is the one function a contestant rewrites, `choose`.
//!
//! Run it: `craits match --bot "craits pipe -- bots/rust/build/release/craits-rust-bot" --bot greedy`.

use serde_json::Value;
use std::io::{self, BufRead, Write};

/// The strategy: the index, in `line["legal_moves"]`, of the move to play. A decision line
/// holds everything the seat may know (`hand`, `top_card`, `active_suit`, `count`,
/// `hand_sizes`, `events`: docs/pipe-bots.md's table). This one gets rid of a card when it can
/// (the first play), else takes the first legal move: index 0 is always legal.
fn choose(line: &Value) -> usize {
    let moves = line["legal_moves"].as_array().map(Vec::as_slice).unwrap_or_default();
    moves
        .iter()
        .position(|m| m.as_str().map_or(false, |text| text.starts_with("play ")))
        .unwrap_or(0)
}

fn main() -> io::Result<()> {
    let mut out = io::stdout().lock();
    for line in io::stdin().lock().lines() {
        let line = line?;
        let answer = match serde_json::from_str::<Value>(&line) {
            Ok(request) if request["type"] == "decision" => choose(&request),
            Ok(request) => {
                eprintln!("craits-rust-bot: {}: {}", request["type"], request["reason"]);
                0 // refused (or a line this bot does not know): index 0 is always legal
            }
            Err(err) => {
                eprintln!("craits-rust-bot: not JSON ({err}): {line}");
                0
            }
        };
        writeln!(out, "{answer}")?;
        out.flush()?; // a pipe is block-buffered: the referee's clock is running
    }
    Ok(()) // stdin closed: the game is over
}
